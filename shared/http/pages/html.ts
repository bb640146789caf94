/** Server-rendered HTML: escaping, the page frame shared by the hosted and sandbox pages, and its response. */
import type { HttpResponse } from '../types';
import { FAVICON } from './checkout/icons';
import { newNonce, pageSecurityHeaders } from './security';
import { PAGE_CSS } from './styles';

export const esc = (v: unknown) =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** JSON safe inside <script type="application/json">: no `</script>`, no HTML comment openers, no JS line separators. */
export const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

export interface PageOptions {
  readonly title: string;
  readonly body: string;
  /** BCP 47 language of the page (<html lang>). */
  readonly lang?: string;
  readonly status?: number;
  /** Page script (runs with the response's CSP nonce) and the data it reads from #model. */
  readonly script?: string;
  readonly data?: unknown;
  /** See pageSecurityHeaders: the sandbox forms redirect to the merchant's site. */
  readonly formsRedirectOffSite?: boolean;
  /** Page-specific rules after the base stylesheet. */
  readonly extraCss?: string;
}

export function htmlPage(o: PageOptions): HttpResponse {
  const nonce = newNonce();
  const data = o.data === undefined ? '' : `<script type="application/json" id="model">${jsonForScript(o.data)}</script>`;
  const script = o.script ? `<script nonce="${nonce}">${o.script}</script>` : '';
  const html = `<!doctype html>
<html lang="${esc(o.lang ?? 'en')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(o.title)}</title><link rel="icon" href="${FAVICON}">
<style nonce="${nonce}">${PAGE_CSS}${o.extraCss ?? ''}</style></head><body>${o.body}${data}${script}</body></html>`;
  return {
    status: o.status ?? 200,
    headers: pageSecurityHeaders({ nonce, formsRedirectOffSite: o.formsRedirectOffSite }),
    raw: { contentType: 'text/html; charset=utf-8', text: html },
  };
}

export const redirect = (location: string) => ({
  status: 303,
  headers: { location, 'cache-control': 'no-store' },
  raw: { contentType: 'text/plain; charset=utf-8', text: `See ${location}` },
});
