/**
 * dLocal's chargeback notices, wired (POST /providers/dlocal/chargebacks): dLocal POSTs the chargeback object to the
 * merchant's chargeback notification URL, "previously registered" with dLocal (docs/chargebacks,
 * reference/chargeback-asynchronous-notification): its card payment request has no field for it (its
 * `notification_url` is the payment's), so the URL is set with dLocal, not sent. The notice is signed like every
 * dLocal notification (dlocal.signature.ts): the signature is checked over the raw body before anything of it is
 * read. A verified notice only names the chargeback, which is read back with GET /chargebacks/{id} through the
 * signed client; its status (and, when the answer carries them, its payment, amount and currency) is what counts.
 * dLocal's older page answers that read with only id and status, so what the read-back leaves out is taken from the
 * signed notice. When neither names the order, the payment is read back by dLocal's id for its order_id.
 */
import * as z from '../../../domain/zod';
import { CURRENCY_DECIMALS, type CurrencyCode } from '../../../domain/geo';
import { ProviderUnavailable, type CardChargeback, type CardChargebacks } from '../../../application/providers';
import type { DlocalConfig } from '../providers.config';
import { DLOCAL, type DlocalClient } from './dlocal.client';
import { CHARGEBACK_STATUSES, cardPaymentSchema, chargebackSchema, type DlocalChargeback } from './dlocal.card-schemas';
import { chargebackSignalOf } from './dlocal.chargebacks';
import { parseCardOrderId } from './dlocal.card-transformers';
import { signatureValid } from './dlocal.signature';

/** GET /chargebacks/{id} as we read it: id and status always; the rest when dLocal gives it. */
export const chargebackReadSchema = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(100)),
  status: z.enum(CHARGEBACK_STATUSES),
  payment_id: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  amount: z.optional(z.number().check(z.positive())),
  currency: z.optional(z.string().check(z.regex(/^[A-Z]{3}$/))),
  order_id: z.optional(z.string()),
  reason_code: z.optional(z.union([z.string(), z.number()])),
  created_date: z.optional(z.string()),
});
export type DlocalChargebackRead = z.infer<typeof chargebackReadSchema>;

/**
 * The chargeback as dLocal holds it: the read-back's fields over the signed notice's (pure). Null when the read-back
 * is of another chargeback (never applied).
 */
export function chargebackOf(notice: DlocalChargeback, read: DlocalChargebackRead): DlocalChargeback | null {
  if (read.id !== notice.id) return null;
  const defined = Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined));
  return { ...notice, ...defined } as DlocalChargeback;
}

/** In the port's words: dLocal's status, its signal, the amount in minor units, our payment from a card order of ours. */
export function cardChargebackOf(c: DlocalChargeback): CardChargeback {
  const decimals = c.currency in CURRENCY_DECIMALS ? CURRENCY_DECIMALS[c.currency as CurrencyCode] : 2;
  const reason = c.reason_code === undefined ? null : String(c.reason_code).slice(0, 32);
  return {
    chargebackId: c.id,
    providerPaymentId: c.payment_id,
    paymentId: (c.order_id ? parseCardOrderId(c.order_id)?.paymentId : null) ?? null,
    status: c.status,
    signal: chargebackSignalOf(c.status),
    amountMinor: Math.round(c.amount * 10 ** decimals),
    currency: c.currency,
    reasonCode: reason && /^[\w.-]+$/.test(reason) ? reason : null,
  };
}

function json(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export function dlocalChargebacks(cfg: Pick<DlocalConfig, 'x_login' | 'secret_key'>, client: DlocalClient): CardChargebacks {
  const expected = { xLogin: cfg.x_login, secretKey: cfg.secret_key };

  async function readBack(notice: DlocalChargeback): Promise<CardChargeback | null> {
    const a = await client.payins({
      op: 'chargeback',
      method: 'GET',
      path: `/chargebacks/${encodeURIComponent(notice.id)}`,
      schema: chargebackReadSchema,
      retry: true,
    });
    if ('refused' in a) {
      if (a.refused.status === 404) return null;
      throw new ProviderUnavailable(DLOCAL, 'chargeback', `dLocal refused the chargeback read-back (${a.refused.status})`);
    }
    const c = chargebackOf(notice, a.ok);
    if (!c) throw new ProviderUnavailable(DLOCAL, 'chargeback', 'dLocal answered another chargeback');
    if (c.order_id) return cardChargebackOf(c);
    // Neither names the order: dLocal's payment names it (read back by dLocal's id).
    const p = await client.payins({
      op: 'payment',
      method: 'GET',
      path: `/payments/${encodeURIComponent(c.payment_id)}`,
      schema: cardPaymentSchema,
      retry: true,
    });
    if ('refused' in p) {
      if (p.refused.status === 404) return cardChargebackOf(c);
      throw new ProviderUnavailable(DLOCAL, 'payment', `dLocal refused the payment read (${p.refused.status})`);
    }
    return cardChargebackOf(p.ok.id === c.payment_id && p.ok.order_id ? { ...c, order_id: p.ok.order_id } : c);
  }

  return {
    provider: DLOCAL,
    parse(headers, rawBody) {
      if (!signatureValid(headers, rawBody, expected)) return { forged: true };
      const n = z.safeParse(chargebackSchema, json(rawBody));
      if (!n.success) return null;
      return { chargebackId: n.data.id, readBack: () => readBack(n.data) };
    },
  };
}
