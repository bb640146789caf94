/**
 * Brazilian PIX payouts (svc-mt-5) through dLocal payouts v3, as the application's payout port (PayoutConnector),
 * beside Efí: our payout as dLocal's payout by PIX key (dlocal.pix-transformers.ts), sealed at prepare (the request
 * holds the whole key and document, stored nowhere else in clear) so every send is the same request, created after
 * the commit under our reference (the external_id derived from the payout id, or a later attempt's suffixed one),
 * and read back by that reference. The payouts v3 client (OAuth2 token, X-Date, X-Version 3.0, timeouts) is the
 * one the bank payouts use.
 *
 * Never two payouts for one reference: dLocal refuses a second create with a used external_id (5011), which is
 * answered by reading the payout back. The read-back says not_found only when dLocal says "Payout not found with
 * this ID" (5009); anything else it cannot read is ProviderUnavailable (outcome unknown). Errors carry dLocal's
 * numeric code (providerCodeOf) so a caller can tell, with payoutNotProcessed, the answers that certainly made
 * nothing; createNeverSent tells a create that never left (its connection refused, its TLS handshake or its
 * token failed).
 *
 * The seal's key is derived from the payouts client secret: rotate it only with no PIX payout's creation
 * unresolved (a payout already created is read back by external_id, which needs no sealed order).
 */
import type { PayoutConnector, ProviderOrder, SignedPayoutNotifications } from '../../../application/providers';
import { ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import * as z from '../../../domain/zod';
import { logger } from '../../../observability';
import { recordPayoutFloatLow } from '../../../observability/provider-metrics';
import type { DlocalConfig } from '../providers.config';
import { SealedOrderError, secretSealer } from '../stp/stp.sealer';
import { DLOCAL, type DlocalClient } from './dlocal.client';
import type { DlocalNotifications } from './dlocal.notifications';
import { pixPayoutRequestSchema, PIX_EXTERNAL_ID, type PixPayoutRequest } from './dlocal.pix-schemas';
import {
  PAYOUT_NOT_FOUND,
  payoutIdOfPixReference,
  pixOrderStateOf,
  pixPayoutBodyOf,
  pixRefusalOf,
  pixSummaryOf,
  v3CodeOf,
  payoutNotProcessed,
  type DlocalPixOrderRequest,
} from './dlocal.pix-transformers';
import { payoutSchema, type PayoutStatus } from './dlocal.schemas';
import { externalIdOf } from './dlocal.transformers';

/**
 * Where dLocal posts a PIX payout's notifications, under our public API's root: the bank payouts' route (one
 * payouts notification URL per dLocal account); the payout it names is read back through this connector's `get`.
 */
export const DLOCAL_PIX_PAYOUT_NOTIFICATION_PATH = '/providers/dlocal/payouts';

const SEAL_INFO = 'latam-payments/dlocal/pix-payout-seal/v1';

/** dLocal refused a create: our code (never dLocal's text) and dLocal's numeric code, when it gave one. */
export class DlocalPayoutRefused extends ProviderRejected {
  constructor(
    operation: string,
    code: string,
    status: number,
    readonly providerCode: number | null,
  ) {
    // dLocal's codes that certainly made nothing (payoutNotProcessed): another provider may pay it (DESIGN.md 9.2).
    super(DLOCAL, operation, code, status, payoutNotProcessed(v3CodeOf(providerCode)));
  }
}

/** No usable answer (outcome unknown), or a refusal of our credentials; dLocal's numeric code when it gave one. */
export class DlocalPayoutUnanswered extends ProviderUnavailable {
  constructor(
    operation: string,
    reason: string,
    readonly providerCode: number | null,
    notSent = false,
  ) {
    super(DLOCAL, operation, reason, notSent);
  }
}

/** dLocal's numeric code (payouts v3 numbering) of an error this connector threw, or null. */
export function providerCodeOf(e: unknown): number | null {
  return e instanceof DlocalPayoutRefused || e instanceof DlocalPayoutUnanswered ? v3CodeOf(e.providerCode) : null;
}

/**
 * A register that failed before its create left us: the token could not be had, or the connection was refused or
 * its TLS handshake failed (reasons of http-client.ts). A timeout, a reset or a 5xx is not: dLocal may have it.
 */
export function createNeverSent(e: unknown): boolean {
  if (!(e instanceof ProviderUnavailable) || e.provider !== DLOCAL) return false;
  return e.operation === 'token' || e.reason === 'connection refused' || e.reason.startsWith('TLS:');
}

/** PayoutConnector whose prepare also takes the reference to send under (a later attempt's). */
export interface DlocalPixPayoutConnector extends PayoutConnector {
  prepare(req: DlocalPixOrderRequest): { readonly order: ProviderOrder } | { readonly invalid: string };
}

export function dlocalPixPayouts(cfg: Pick<DlocalConfig, 'payouts'>, client: DlocalClient): DlocalPixPayoutConnector {
  const sealer = secretSealer(cfg.payouts?.client_secret ?? '', SEAL_INFO);

  function open(order: Pick<ProviderOrder, 'reference' | 'sealed'>): PixPayoutRequest {
    try {
      const parsed = z.safeParse(pixPayoutRequestSchema, JSON.parse(sealer.open(order.sealed, order.reference)));
      if (parsed.success && parsed.data.external_id === order.reference) return parsed.data;
    } catch (e) {
      if (!(e instanceof SealedOrderError) && !(e instanceof SyntaxError)) throw e;
    }
    // Sealed under a client secret since rotated (or not a PIX payout): it cannot be sent again as it was; it waits.
    logger.error('dLocal PIX payout could not be unsealed for a resend', { provider: DLOCAL, operation: 'payouts', page: true });
    throw new DlocalPayoutUnanswered('payouts', 'The sealed payout could not be opened', null);
  }

  async function get(reference: string) {
    if (!PIX_EXTERNAL_ID.test(reference)) throw new DlocalPayoutUnanswered('payout', 'not one of our PIX payout references', null);
    const a = await client.payouts({
      op: 'payout',
      method: 'GET',
      path: `/payouts/v3?external_id=${reference}`,
      schema: payoutSchema,
      retry: true,
    });
    if ('refused' in a) {
      const code = v3CodeOf(a.refused.code);
      // Only dLocal's own "Payout not found with this ID" is a certain none; a bare 404 may be anything's.
      if (code === PAYOUT_NOT_FOUND) return { kind: 'not_found' as const };
      throw new DlocalPayoutUnanswered('payout', `dLocal refused the payout query (${a.refused.status})`, code);
    }
    if (a.ok.external_id !== reference) throw new DlocalPayoutUnanswered('payout', 'dLocal answered another payout', null);
    return pixOrderStateOf(a.ok);
  }

  return {
    // A later attempt (a failover, DESIGN.md 9.2) appends `a<n>` to the payout's own external_id.
    provider: { name: DLOCAL, reference: (payoutId: string, attempt = 1) => externalIdOf(payoutId) + (attempt > 1 ? `a${attempt}` : '') },
    // dLocal's payouts v3 has no return after PAID (reference/payout-status-v3): nothing to watch.
    returnWatchSeconds: 0,
    prepare(req) {
      const notificationUrl = `${req.callbackBaseUrl.replace(/\/$/, '')}${DLOCAL_PIX_PAYOUT_NOTIFICATION_PATH}`;
      const p = pixPayoutBodyOf(req, notificationUrl);
      if ('invalid' in p) return p;
      const reference = p.body.external_id;
      return { order: { reference, summary: pixSummaryOf(p.body), sealed: sealer.seal(JSON.stringify(p.body), reference) } };
    },
    async register(order) {
      const body = open(order);
      let a: Awaited<ReturnType<typeof client.payouts<typeof payoutSchema>>>;
      try {
        a = await client.payouts({ op: 'payouts', method: 'POST', path: '/payouts/v3', schema: payoutSchema, body });
      } catch (e) {
        // Never left (no token, connection refused, TLS): said so, so a failover may follow.
        if (e instanceof ProviderUnavailable && !e.notSent && createNeverSent(e))
          throw new ProviderUnavailable(DLOCAL, e.operation, e.reason, true);
        throw e;
      }
      if ('ok' in a) {
        if (a.ok.external_id !== order.reference) throw new DlocalPayoutUnanswered('payouts', 'dLocal answered another payout', null);
        const state = pixOrderStateOf(a.ok);
        // Refused in its answer: a definite no (the payout fails and is credited back; our code, never dLocal's text).
        if (state.kind === 'cancelled') throw new DlocalPayoutRefused('payouts', state.failureCode ?? 'rejected_by_provider', 200, null);
        return { orderId: a.ok.id, state };
      }
      const code = v3CodeOf(a.refused.code);
      const r = pixRefusalOf(code);
      const fields = { provider: DLOCAL, operation: 'payouts', status: a.refused.status, dlocal_code: code };
      if (r.kind === 'duplicate') {
        // An earlier create with this reference got through (its answer was lost): what dLocal holds is the answer.
        const held = await get(order.reference);
        if (held.kind === 'not_found') return { duplicate: true };
        return { orderId: held.orderId ?? order.reference, state: held };
      }
      if (r.kind === 'misconfigured') {
        logger.error('dLocal refused a PIX payout for our credentials or address, not the payout', { ...fields, page: true });
        // Refused before anything was made (our credentials or address): nothing at dLocal.
        throw new DlocalPayoutUnanswered('payouts', `dLocal refused our credentials or address (code ${code})`, code, true);
      }
      if (r.code === 'provider_balance_insufficient') recordPayoutFloatLow(DLOCAL);
      if (r.page) logger.error('dLocal refused a PIX payout: our balance, account or request', { ...fields, code: r.code, page: true });
      else logger.warn('dLocal refused a PIX payout', { ...fields, code: r.code });
      throw new DlocalPayoutRefused('payouts', r.code, a.refused.status, code);
    },
    get,
  };
}

/** A notification's status as the change it claims (the payout is read back before anything moves). */
function claimedOf(status: string): 'pending' | 'settled' | 'cancelled' {
  const s = status as PayoutStatus;
  return s === 'PAID' ? 'settled' : s === 'REJECTED' || s === 'CANCELLED' ? 'cancelled' : 'pending';
}

/**
 * dLocal's payout notifications for PIX payouts: the same signed body as the bank payouts' (checked over the raw
 * body first: a bad signature is forged; dLocal's v3 page documents none, so an unsigned one is only a prompt to
 * read back), naming the payout by its reference as sent (with its attempt suffix) and by dLocal's id.
 */
export function dlocalPixNotifications(n: Pick<DlocalNotifications, 'parsePayout'>): SignedPayoutNotifications {
  return {
    parse(headers, rawBody) {
      const r = n.parsePayout(headers, rawBody);
      if (!r || 'forged' in r) return r;
      let reference: string | undefined;
      try {
        const externalId = (JSON.parse(rawBody) as { external_id?: unknown }).external_id;
        if (typeof externalId === 'string' && PIX_EXTERNAL_ID.test(externalId)) reference = externalId;
      } catch {
        return null;
      }
      return { item: { ...(reference ? { reference } : {}), orderId: r.item.providerPayoutId, claimed: claimedOf(r.item.claimed) } };
    },
    payoutIdOf: payoutIdOfPixReference,
  };
}
