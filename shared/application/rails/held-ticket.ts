/**
 * A held local payment paid elsewhere with a ticket (issue 32: PagoEfectivo's CIP, Efecty, Servipag): the open
 * payment shows the ticket's number (a CIP as `cip_code`, a cash slip as `voucher_reference`), its barcode when the
 * provider gives one, and its due date; the payment expires when the provider's ticket does.
 */
import type { Payment } from '../../domain/payments/payment';

const instant = (value: string | undefined): string | null => {
  const t = value ? Date.parse(value) : NaN;
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
};

/** What an open ticket payment shows; null while the provider's answer carries no number to pay with. */
export function ticketPatch(payment: Payment, ticket: Readonly<Record<string, string>>): Partial<Payment> | null {
  const number = ticket.number ?? ticket.reference;
  if (!number) return null;
  const expiresAt = instant(ticket.expiration_date);
  const artefact: Record<string, string> = {
    [payment.payment_method === 'cip' ? 'cip_code' : 'voucher_reference']: number,
    ...(ticket.barcode ? { barcode: ticket.barcode } : {}),
    ...(expiresAt ? { due_date: expiresAt.slice(0, 10) } : {}),
    ...(ticket.image_url?.startsWith('https://') ? { ticket_url: ticket.image_url } : {}),
  };
  return { artefact, ...(expiresAt ? { expires_at: expiresAt } : {}) };
}
