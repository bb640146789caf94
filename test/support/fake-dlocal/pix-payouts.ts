/**
 * The fake dLocal's Brazilian PIX payouts (payouts v3, country BR) and its connection faults, kept apart from
 * index.ts and state.ts and hooked into them by a few lines:
 * - a create is checked against OUR schema of the PIX request (dlocal.pix-schemas.ts) and the page's "Full CPF
 *   validation" (check digits of a CPF or CNPJ document or key); a mismatch is a violation answered 400 3000;
 * - payouts are kept by our reference (external_id) in the state's maps, beside the bank payouts, so reading back,
 *   setPayoutStatus (settle, reject with a reason, cancel, hold) and notifyPayout (signed as dLocal signs) are the
 *   bank payouts' own; a second create with a used reference is refused with the v3 page's 5011 "External ID
 *   already used." (and another body under it is our defect: a violation too);
 * - a key can be refused with any documented code (refuse): the create is counted, nothing is made;
 * - connections can be refused (the listener closed and every open connection dropped, so a kept-alive client gets
 *   a refused connection too) and accepted again on the same port.
 */
import { randomUUID } from 'node:crypto';
import { validateDocument } from '../../../shared/domain/documents';
import { pixPayoutRequestSchema } from '../../../shared/adapters/providers/dlocal/dlocal.pix-schemas';
import { DlocalError, type DlocalState, type FakePayout } from './state';

/** A payout create the PIX path takes: the Brazilian ones (the bank payouts pay Peru, Colombia, Argentina). */
export const isPixPayoutBody = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { country?: unknown }).country === 'BR';

/** How a refused key is answered: dLocal's HTTP status and code (default 400). */
export interface PixRefusal {
  readonly code: number;
  readonly status?: number;
}

export class FakePixPayouts {
  /** Keys whose next creates are refused, and how. */
  readonly refusals = new Map<string, PixRefusal>();

  constructor(private readonly state: DlocalState) {}

  create(body: unknown): Record<string, unknown> {
    const s = this.state;
    const r = s.check('POST /payouts/v3 (BR, PIX)', pixPayoutRequestSchema, body);
    const account = r.beneficiary.bank_account;
    const problems = [
      !validateDocument(r.beneficiary.document.type, r.beneficiary.document.id).valid && 'the document fails its check digits',
      (account.pix_key_type === 'CPF' || account.pix_key_type === 'CNPJ') &&
        !validateDocument(account.pix_key_type, account.pix_key).valid &&
        'the CPF/CNPJ key fails its check digits',
    ].filter((p): p is string => typeof p === 'string');
    if (problems.length) {
      s.violations.push(`POST /payouts/v3 (BR, PIX): ${problems.join('; ')}`);
      throw new DlocalError(400, 3000, 'Invalid params beneficiary', 'beneficiary');
    }
    s.payoutCreates.set(r.external_id, (s.payoutCreates.get(r.external_id) ?? 0) + 1);
    const held = s.byExternalId.get(r.external_id);
    if (held) {
      if (JSON.stringify(held.request) !== JSON.stringify(r))
        s.violations.push(`POST /payouts/v3 (BR, PIX): another body for the used external_id ${r.external_id}`);
      throw new DlocalError(400, 5011, 'External ID already used.');
    }
    const refusal = this.refusals.get(account.pix_key);
    if (refusal) throw new DlocalError(refusal.status ?? 400, refusal.code, 'Scripted refusal');
    const now = new Date().toISOString();
    const p: FakePayout = {
      id: `PO-4-${randomUUID()}`,
      request: r,
      status: 'PENDING',
      statusCode: '100',
      createdDate: now,
      lastUpdated: now,
    };
    s.payouts.set(p.id, p);
    s.byExternalId.set(r.external_id, p);
    return s.payoutObject(p);
  }
}
