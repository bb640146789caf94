/** The hosted checkout page (customer-facing): shows the session, collects the customer and pays via /api/v1/checkout/process. */
import { fromMinor } from '../../domain/money';
import type { AvailableMethod } from '../../domain/payments/methods';
import { esc, page } from './html';

export interface CheckoutPageModel {
  readonly sessionId: string;
  readonly merchantName: string;
  readonly amountMinor: number;
  readonly currency: Parameters<typeof fromMinor>[1];
  readonly description: string | null;
  readonly status: string;
  readonly livemode: boolean;
  readonly methods: readonly AvailableMethod[];
  readonly customer: Record<string, string>;
  readonly successUrl: string;
  readonly cancelUrl: string;
}

const SCRIPT = `
const form=document.getElementById('pay');const out=document.getElementById('out');
const cardBox=document.getElementById('card');
function sync(){const m=form.querySelector('input[name=payment_method]:checked');cardBox.style.display=m&&m.value==='card'?'block':'none';}
form.addEventListener('change',sync);sync();
form.addEventListener('submit',async(e)=>{e.preventDefault();out.textContent='Processing…';
 const f=new FormData(form);const method=f.get('payment_method');
 const body={session_id:form.dataset.session,payment_method:method,customer:{name:f.get('name'),email:f.get('email'),document:f.get('document')}};
 if(f.get('phone'))body.customer.phone=f.get('phone');
 if(method==='card'){const [mm,yy]=String(f.get('expiry')||'').split('/');body.card={number:String(f.get('number')).replace(/\\s/g,''),holder_name:f.get('holder_name'),expiry_month:mm,expiry_year:yy,cvv:f.get('cvv')};}
 const r=await fetch('/api/v1/checkout/process',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)});
 const j=await r.json();
 if(!j.success){out.innerHTML='<p class=error></p>';out.firstChild.textContent=j.error_message||'Payment failed';return;}
 if(j.redirect_url){location.href=j.redirect_url;return;}
 if(j.status==='success'){location.href=form.dataset.success;return;}
 let html='<p>Payment created: <b>'+j.status+'</b></p>';
 if(j.pix_qr_code)html+='<img alt="PIX QR code" width=240 height=240 src="'+j.pix_qr_code+'">';
 for(const k of ['pix_code','boleto_line','clabe','cip_code','voucher_reference','reference','account_number'])if(j[k])html+='<p>'+k.replace('_',' ')+': <code>'+j[k]+'</code></p>';
 if(form.dataset.sandbox==='1')html+='<p><a href="/sandbox/pay/'+j.payment_id+'">Sandbox: simulate the customer paying</a></p>';
 out.innerHTML=html;});`;

export function renderCheckoutPage(m: CheckoutPageModel): string {
  const amount = `${fromMinor(m.amountMinor, m.currency).toFixed(m.currency === 'CLP' ? 0 : 2)} ${m.currency}`;
  const head = `${m.livemode ? '' : '<span class="sandbox">SANDBOX</span>'}<h1>${esc(m.merchantName)}</h1><div class="amount">${esc(amount)}</div><p class="muted">${esc(m.description ?? '')}</p>`;
  if (m.status !== 'pending') {
    return page(`${m.merchantName}: checkout`, `${head}<p>This checkout is <b>${esc(m.status)}</b>.</p><p><a href="${esc(m.status === 'completed' || m.status === 'success' ? m.successUrl : m.cancelUrl)}">Return to the merchant</a></p>`);
  }
  const usable = m.methods.filter((x) => x.enabled);
  const radios = usable.map((x, i) => `<label><input type="radio" name="payment_method" value="${esc(x.id)}"${i === 0 ? ' checked' : ''}> ${esc(x.name)}</label>`).join('');
  const c = m.customer;
  const field = (name: string, label: string, value = '', type = 'text') => `<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${esc(value)}">`;
  const body = `${head}
<form id="pay" data-session="${esc(m.sessionId)}" data-success="${esc(m.successUrl)}" data-sandbox="${m.livemode ? '0' : '1'}">
<div class="methods">${radios || '<p class=error>No payment method is available for this checkout.</p>'}</div>
${field('name', 'Full name', c.name)}${field('email', 'Email', c.email, 'email')}${field('document', 'Document', c.document)}${field('phone', 'Phone (optional)', c.phone, 'tel')}
<div id="card">${field('number', 'Card number')}${field('holder_name', 'Name on card')}${field('expiry', 'Expiry (MM/YYYY)')}${field('cvv', 'CVV')}</div>
<button type="submit">Pay ${esc(amount)}</button> <a href="${esc(m.cancelUrl)}">Cancel</a>
</form><div id="out"></div>`;
  return page(`${m.merchantName}: checkout`, body, SCRIPT);
}
