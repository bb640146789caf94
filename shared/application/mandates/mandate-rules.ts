/** The checks of a mandate request and of a charge under it, before anything is written (each an AppError naming the field). */
import { AppError, type FieldError } from '../../domain/errors';
import { COUNTRIES } from '../../domain/geo';
import { validateCustomerDocument } from '../../domain/documents';
import {
  cycleOf,
  daysBetween,
  localToday,
  PIX_AUTOMATICO_CHARGE_WINDOW_DAYS,
  type Mandate,
  type MandateMethod,
} from '../../domain/mandates/mandate';
import type { CreateMandateInput } from '../../domain/mandates/mandate.schemas';
import { methodCodeFor } from '../../domain/payments/methods';
import { toMinor } from '../../domain/money';
import type { Merchant } from '../../domain/merchant';

const invalid = (details: FieldError[]) =>
  new AppError('VALIDATION_ERROR', `Invalid request parameters: ${details.map((d) => d.field).join(', ')}.`, { details });

/** The payment kind a mandate's charges are. */
export const chargeKindOf = (method: MandateMethod) => (method === 'pix_automatico' ? 'pix' : 'card') as 'pix' | 'card';

/** The method code a mandate's charges use, checked against what the merchant may use. */
export function checkMandateRequest(
  merchant: Merchant,
  input: CreateMandateInput,
  now: Date,
): { code: string; amountMinor: number | null; maxMinor: number | null } {
  const kind = chargeKindOf(input.method);
  if (input.method === 'pix_automatico' && input.country !== 'BRA')
    throw invalid([{ field: 'country', message: 'pix_automatico is Brazil’s: must be BRA' }]);
  const currency = COUNTRIES[input.country].currency;
  if (input.currency !== currency) throw invalid([{ field: 'currency', message: `must be ${currency} for ${input.country}` }]);
  const code = methodCodeFor(kind, input.country);
  if (!code || !merchant.methods.includes(code) || !merchant.countries.includes(input.country))
    throw new AppError('METHOD_NOT_AVAILABLE', `${input.method} is not enabled for this merchant in ${input.country}.`);
  const errors: FieldError[] = [];
  const minor = (v: number | undefined, field: string) => {
    if (v === undefined) return null;
    const m = toMinor(v, currency);
    if (m === null) errors.push({ field, message: `must be greater than 0 with at most the decimals of ${currency}` });
    return m;
  };
  const amountMinor = minor(input.amount, 'amount');
  const maxMinor = minor(input.max_amount, 'max_amount');
  if (input.start_date < localToday(now))
    errors.push({ field: 'start_date', message: `must not be in the past (today is ${localToday(now)})` });
  const doc = validateCustomerDocument(input.country, input.customer.document);
  if (!doc.valid) errors.push({ field: 'customer.document', message: doc.message ?? 'is not a valid document' });
  if (errors.length) throw invalid(errors);
  return { code, amountMinor, maxMinor };
}

/** A charge's amount and due date against its mandate: the billing cycle it falls in. */
export function checkCharge(
  m: Mandate,
  req: { amountMinor: number | null; dueDate: string },
  now: Date,
  pixWindow: { min: number; max: number } = PIX_AUTOMATICO_CHARGE_WINDOW_DAYS,
): number {
  if (m.status !== 'active') throw new AppError('MANDATE_NOT_ACTIVE', `The mandate is ${m.status}: only an active mandate can be charged.`);
  if (req.amountMinor === null)
    throw invalid([{ field: 'amount', message: `must be greater than 0 with at most the decimals of ${m.currency}` }]);
  const cap = m.amount_minor ?? m.max_amount_minor;
  if (cap !== null && req.amountMinor > cap)
    throw new AppError('MANDATE_AMOUNT_EXCEEDED', `The mandate allows at most ${cap} minor units of ${m.currency} a charge.`);
  if (m.amount_minor !== null && req.amountMinor !== m.amount_minor)
    throw invalid([{ field: 'amount', message: 'must equal the mandate’s amount (a fixed-amount mandate)' }]);
  const cycle = cycleOf(m, req.dueDate);
  if (cycle === null || (m.end_date && req.dueDate > m.end_date))
    throw new AppError('DUE_DATE_OUTSIDE_WINDOW', `due_date must be within the mandate (${m.start_date} to ${m.end_date ?? 'open'}).`);
  const today = localToday(now);
  if (m.method === 'card') {
    if (req.dueDate !== today)
      throw new AppError('DUE_DATE_OUTSIDE_WINDOW', `A card mandate is charged at once: due_date must be today (${today}).`);
  } else {
    const days = daysBetween(today, req.dueDate);
    if (days < pixWindow.min || days > pixWindow.max)
      throw new AppError(
        'DUE_DATE_OUTSIDE_WINDOW',
        `A Pix Automático charge is sent ${pixWindow.min} to ${pixWindow.max} days before its due date; ` +
          `${req.dueDate} is ${days} days away.`,
      );
  }
  return cycle;
}
