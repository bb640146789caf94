/**
 * Between our domain and STP's wire: the claveRastreo derived from a payout id (reversible), the order we
 * register for a payout (the same fields on every send for one payout), what an order state means to us,
 * and the CLABE a live SPEI payment is paid to.
 */
import { createHash } from 'node:crypto';
import type { IncomingDeposit, PayoutOrderRequest, ProviderOrderState } from '../../../application/providers';
import { buildClabe } from '../../../domain/payments/clabe';
import { institutionOfClabe, STP_INSTITUTION } from './stp.institutions';
import type { AbonoCallback, OrdenPago, OrdenUnsigned } from './stp.schemas';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Buffer | null {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return null;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

const PAYOUT_PREFIX = 'po_';
const CLAVE_TAG = 'LP';

/**
 * claveRastreo `LP` + the payout id's 16 bytes in base32 (A-Z, 2-7): 28 characters, inside STP's alphanumeric
 * 29, and mapping back to the payout id (a state change names the order by it).
 */
export function claveRastreoOf(payoutId: string): string {
  const raw = payoutId.slice(PAYOUT_PREFIX.length);
  const bytes = Buffer.from(raw, 'base64url');
  if (!payoutId.startsWith(PAYOUT_PREFIX) || bytes.length !== 16 || bytes.toString('base64url') !== raw)
    throw new RangeError('not a payout id');
  return `${CLAVE_TAG}${base32(bytes)}`;
}

export function payoutIdOfClaveRastreo(clave: string): string | null {
  const m = /^LP([A-Z2-7]{26})$/.exec(clave);
  const bytes = m ? unbase32(m[1] as string) : null;
  if (!bytes || bytes.length !== 16) return null;
  const id = `${PAYOUT_PREFIX}${bytes.toString('base64url')}`;
  return claveRastreoOf(id) === clave ? id : null;
}

/** referenciaNumerica: 7 digits derived from the payout id (the same on every send). */
export function referenciaNumericaOf(payoutId: string): number {
  return 1_000_000 + (createHash('sha256').update(payoutId).digest().readUInt32BE(0) % 9_000_000);
}

/** Text for a signed field: accents dropped, only what STP takes (no `|`), spaces collapsed, at most `max` characters. */
export function stpText(value: string, max: number): string {
  const ascii = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .,\-/]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return ascii.slice(0, max).trim();
}

/** RFC or CURP as STP takes it, else ND (not given). */
export function rfcCurpOf(document: string): string {
  const d = document.trim().toUpperCase();
  return /^([A-Z&Ñ]{3,4}\d{6}[A-Z0-9]{3}|[A-Z]{4}\d{6}[HM][A-Z]{5}[A-Z0-9]\d)$/.test(d) ? d : 'ND';
}

export type PreparedOrder = { readonly order: OrdenUnsigned } | { readonly invalid: string };

/** The order for a payout, or why the beneficiary cannot be paid through STP (nothing is written then). */
export function ordenOf(req: PayoutOrderRequest, cfg: { empresa: string; cuenta_ordenante: string }): PreparedOrder {
  const clabe = req.instantTransferKey ?? '';
  const institucion = institutionOfClabe(clabe);
  if (!institucion) return { invalid: 'The CLABE’s bank code is not a SPEI participant.' };
  if (clabe === cfg.cuenta_ordenante) return { invalid: 'The CLABE is the platform’s own account.' };
  const nombre = stpText(req.beneficiaryName, 39);
  if (!nombre) return { invalid: 'The beneficiary name has no letters STP can take.' };
  return {
    order: {
      claveRastreo: claveRastreoOf(req.payoutId),
      // Ours too (the same derived key): STP's state change carries it back, beside its own order id.
      folioOrigen: claveRastreoOf(req.payoutId),
      empresa: cfg.empresa,
      institucionOperante: STP_INSTITUTION,
      cuentaOrdenante: cfg.cuenta_ordenante,
      tipoCuentaOrdenante: 40,
      institucionContraparte: institucion,
      cuentaBeneficiario: clabe,
      tipoCuentaBeneficiario: 40,
      nombreBeneficiario: nombre,
      rfcCurpBeneficiario: rfcCurpOf(req.beneficiaryDocument),
      monto: req.amountMinor / 100,
      conceptoPago: stpText(req.concept ?? '', 39) || 'Pago',
      referenciaNumerica: referenciaNumericaOf(req.payoutId),
      tipoPago: 1,
      topologia: 'T',
      medioEntrega: 3,
      prioridad: 0,
    },
  };
}

/** STP's order states (estado) that end an order: settled, cancelled (never paid), returned (paid, then sent back). */
const SETTLED = new Set(['LQ', 'TLQ']);
const CANCELLED = new Set(['CN', 'CL', 'CR', 'RL', 'CA', 'RA', 'RB', 'TCL', 'EL']);
const RETURNED = new Set(['D', 'RE']);

/** An order read back, as our state. */
export function orderStateOf(o: OrdenPago): ProviderOrderState {
  const orderId = o.idEF ? String(o.idEF) : undefined;
  const at = o.tsLiquidacion ? new Date(o.tsLiquidacion).toISOString() : undefined;
  if (SETTLED.has(o.estado)) return { kind: 'settled', orderId, at };
  if (CANCELLED.has(o.estado)) return { kind: 'cancelled', orderId, reason: o.estado };
  if (RETURNED.has(o.estado)) return { kind: 'returned', orderId, at, reason: o.causaDevolucion == null ? '' : String(o.causaDevolucion) };
  return { kind: 'pending', orderId };
}

/** A state-change callback's estado as the order state it claims (confirmed only by the query). */
export const claimedKind = (estado: 'LIQUIDACION' | 'CANCELACION' | 'DEVOLUCION') =>
  estado === 'LIQUIDACION' ? 'settled' : estado === 'CANCELACION' ? 'cancelled' : 'returned';

/**
 * A live SPEI payment's CLABE under the platform's STP account: the account's first 10 digits (STP 646, plaza
 * 180, the company's 4-digit prefix), 7 digits of ours, and the CLABE check digit.
 */
export function paymentClabe(cuentaOrdenante: string, seven: string): string {
  if (!/^\d{7}$/.test(seven)) throw new RangeError('seven digits');
  const head = cuentaOrdenante.slice(0, 10);
  return buildClabe(head.slice(0, 3), head.slice(3, 6), head.slice(6) + seven);
}

/** The 7 digits of a payment's CLABE, from its id (another attempt gives other digits when those are taken). */
export function sevenDigitsOf(paymentId: string, attempt: number): string {
  const n = createHash('sha256').update(`${paymentId}#${attempt}`).digest().readUInt32BE(0) % 10_000_000;
  return String(n).padStart(7, '0');
}

/** An abono as our deposit: amount in centavos (STP sends a decimal number), its time from tsLiquidacion when given. */
export function depositOf(a: AbonoCallback): IncomingDeposit {
  const ts = typeof a.tsLiquidacion === 'number' ? a.tsLiquidacion : Number(a.tsLiquidacion ?? NaN);
  return {
    depositId: String(a.id),
    clabe: a.cuentaBeneficiario,
    amountMinor: Math.round(a.monto * 100),
    trackingKey: a.claveRastreo,
    paidAt: Number.isFinite(ts) && ts > 0 ? new Date(ts).toISOString() : new Date().toISOString(),
    operationDate: String(a.fechaOperacion),
  };
}
