/**
 * The Efí connector (formerly Gerencianet; DESIGN.md section 8): live PIX payouts (a send by Pix key or by bank
 * account, PUT /v3/gn/pix/:idEnvio with our idEnvio, read back by idEnvio), the send callback's token check and
 * parser, the MED reader (infractions against Pix we received, as dispute notices) and the MED defense
 * (efi.med-defense.ts). Efí also serves the
 * standard API Pix for receiving; that stays with the api-pix connector.
 *
 * SDK or our own client: our own (efi.client.ts says why: the SDK loads certificates from files or base64 blobs
 * without our CA, opens a TLS connection per call, sets no timeout, hard-codes Efí's hosts and needs node >= 22).
 *
 * The exact send is sealed at prepare (it holds the whole key or account and document) under a key derived from
 * the configured private key, as STP's orders are (stp.sealer.ts, bound to the idEnvio), so a resend is
 * byte-identical; Efí refuses a second send with one idEnvio (409), which register answers by reading it back.
 */
import { createHash, createPrivateKey, timingSafeEqual } from 'node:crypto';
import * as z from '../../../domain/zod';
import type {
  PayoutCallbacks,
  PayoutConnector,
  PayoutStateItem,
  PixDisputeNotice,
  PixDisputeReader,
  ProviderOrder,
  ProviderOrderState,
} from '../../../application/providers';
import { ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { EFI_RETURN_WATCH_SECONDS, type EfiConfig } from '../providers.config';
import { pixSchema, webhookSchema } from '../api-pix/api-pix.schemas';
import { orderSealer, SealedOrderError, type OrderSealer } from '../stp/stp.sealer';
import { EFI, efiClient, EfiRefusal, type EfiClient } from './efi.client';
import { callbackSchema, idEnvioSchema, sendAnswerSchema, sendRequestSchema, sentPixSchema, type SendRequest } from './efi.schemas';
import { efiMedDefense, listInfractions, type EfiMedDefense } from './efi.med-defense';
import {
  disputeNoticeOf,
  idEnvioOf,
  payoutIdOfIdEnvio,
  sendRefusalOf,
  sendRequestOf,
  sendSummary,
  sentStateOf,
  spiReasonCode,
  type PixPayoutOrderRequest,
} from './efi.transformers';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Live PIX payouts: PayoutConnector with a PIX beneficiary (a key or a bank account) instead of a CLABE. */
export interface PixPayoutConnector extends Omit<PayoutConnector, 'prepare'> {
  prepare(req: PixPayoutOrderRequest): { readonly order: ProviderOrder } | { readonly invalid: string };
}

/** A send's state callback item, with the SPI reason of a failed one (a hint until the read-back confirms it). */
export interface PixPayoutStateItem extends PayoutStateItem {
  readonly reasonHint: string | null;
}

/** PayoutCallbacks, and every send a callback carries (one callback may carry several, and received Pix too). */
export interface EfiPayoutCallbacks extends PayoutCallbacks {
  parseStates(body: unknown): { readonly items: readonly PixPayoutStateItem[]; readonly ignored: number } | null;
}

export interface EfiConnectors {
  readonly pixPayouts: PixPayoutConnector;
  readonly pixPayoutCallbacks: EfiPayoutCallbacks;
  readonly pixDisputes: PixDisputeReader;
  /** The receiver's defense of an infraction (MED), and the infraction read back (efi.med-defense.ts). */
  readonly pixInfractionDefense: EfiMedDefense;
  /** The webhook of the payer key, where Efí tells each send's outcome (ops CLI). */
  readonly webhooks: {
    register(url: string, opts?: { skipMtlsChecking?: boolean }): Promise<void>;
    get(): Promise<{ webhookUrl: string } | null>;
  };
  readonly client: EfiClient;
}

const sentPath = (idEnvio: string) => `/v2/gn/pix/enviados/id-envio/${encodeURIComponent(idEnvio)}`;

/** One callback item as the state it claims, or null when it is not a send of ours with a final status. */
function stateItemOf(item: z.infer<typeof callbackSchema>['pix'][number]): PixPayoutStateItem | null {
  const idEnvio = item.gnExtras?.idEnvio;
  if (!idEnvio || !z.safeParse(idEnvioSchema, idEnvio).success) return null;
  const orderId = item.endToEndId ?? idEnvio;
  const returned = Array.isArray((item as { devolucoes?: unknown }).devolucoes);
  if (item.status === 'REALIZADO') return { reference: idEnvio, orderId, claimed: returned ? 'returned' : 'settled', reasonHint: null };
  if (item.status === 'NAO_REALIZADO')
    return { reference: idEnvio, orderId, claimed: 'cancelled', reasonHint: spiReasonCode(item.gnExtras?.erro?.codigo) };
  return null;
}

export function efiCallbacks(cfg: Pick<EfiConfig, 'webhook_token'>): EfiPayoutCallbacks {
  const expected = digest(cfg.webhook_token);
  const parseStates = (body: unknown) => {
    const r = z.safeParse(callbackSchema, body);
    if (!r.success) return null;
    const items = r.data.pix.map(stateItemOf).filter((i): i is PixPayoutStateItem => i !== null);
    return { items, ignored: r.data.pix.length - items.length };
  };
  return {
    // Hashing both sides gives equal lengths, so the comparison is constant-time whatever was sent.
    tokenMatches: (token) => timingSafeEqual(digest(token), expected),
    parseStates,
    parseState: (body) => parseStates(body)?.items[0] ?? null,
    payoutIdOf: payoutIdOfIdEnvio,
  };
}

function openSend(sealer: OrderSealer, order: Pick<ProviderOrder, 'reference' | 'sealed'>): SendRequest {
  try {
    const parsed = z.safeParse(sendRequestSchema, JSON.parse(sealer.open(order.sealed, order.reference)));
    if (parsed.success) return parsed.data;
  } catch (e) {
    if (!(e instanceof SealedOrderError) && !(e instanceof SyntaxError)) throw e;
  }
  // Sealed under a private key since replaced (or not a send): it cannot be sent again as it was; the payout waits.
  logger.error('Efí send could not be unsealed for a resend', { provider: EFI, operation: 'send' });
  throw new ProviderUnavailable(EFI, 'send', 'The sealed send could not be opened');
}

export function efiConnectors(cfg: EfiConfig, client: EfiClient = efiClient(cfg)): EfiConnectors {
  const sealer = orderSealer(createPrivateKey({ key: cfg.private_key_pem, format: 'pem' }));

  async function get(reference: string): Promise<ProviderOrderState> {
    const sent = await client.call('getSent', 'GET', sentPath(reference), sentPixSchema, undefined, { notFoundIsNull: true, retry: true });
    if (!sent) return { kind: 'not_found' };
    if (sent.idEnvio !== reference) throw new ProviderUnavailable(EFI, 'getSent', 'Efí answered another send');
    return sentStateOf(sent);
  }

  const pixPayouts: PixPayoutConnector = {
    provider: { name: EFI, reference: idEnvioOf },
    returnWatchSeconds: cfg.return_watch_seconds ?? EFI_RETURN_WATCH_SECONDS,
    prepare(req) {
      const p = sendRequestOf(req, cfg.pix_key);
      if ('invalid' in p) return p;
      const idEnvio = req.reference ?? idEnvioOf(req.payoutId);
      if (payoutIdOfIdEnvio(idEnvio) !== req.payoutId) return { invalid: 'The reference is not one of this payout.' };
      const sealed = sealer.seal(JSON.stringify(p.request), idEnvio);
      return { order: { reference: idEnvio, summary: sendSummary(idEnvio, p.request, req.pixKey?.type), sealed } };
    },
    async register(order) {
      const body = openSend(sealer, order);
      try {
        const a = await client.call('send', 'PUT', `/v3/gn/pix/${encodeURIComponent(order.reference)}`, sendAnswerSchema, body);
        if (!a || a.idEnvio !== order.reference) throw new ProviderUnavailable(EFI, 'send', 'Efí answered another send');
        return { orderId: a.e2eId ?? a.endToEndId ?? a.idEnvio };
      } catch (e) {
        if (!(e instanceof EfiRefusal)) throw e;
        const r = sendRefusalOf(e.status, e.efiName);
        if (r.kind === 'duplicate') {
          // An earlier send with this idEnvio got through (its answer was lost): what Efí holds is the answer.
          const held = await get(order.reference);
          if (held.kind === 'not_found') return { duplicate: true };
          return { orderId: held.orderId ?? order.reference };
        }
        if (r.kind === 'misconfigured') {
          logger.error('Efí refused a send for our account or request, not the payout', {
            provider: EFI,
            operation: 'send',
            status: e.status,
            code: e.efiName,
            page: true,
          });
          throw new ProviderUnavailable(EFI, 'send', `Efí refused the request itself (${e.efiName})`);
        }
        const fields = { provider: EFI, operation: 'send', code: r.code, page: r.page };
        if (r.page) logger.error('Efí refused a send: our balance there', fields);
        else logger.warn('Efí refused a send', fields);
        // Our own balance at Efí: the send was not made, and another provider may pay it (DESIGN.md 9.2).
        throw new ProviderRejected(EFI, 'send', r.code, e.status, r.code === 'provider_balance_insufficient');
      }
    },
    get,
  };

  const pixDisputes: PixDisputeReader = {
    provider: EFI,
    async list({ since, until }) {
      const infractions = await listInfractions(client, since, until);
      const now = new Date();
      const notices: PixDisputeNotice[] = [];
      for (const i of infractions) {
        // Each Pix is read back: its txid names our payment, and its MED returns say whether money left.
        // Infractions are rare, so one read each is cheap.
        const pix = await client.call('getPix', 'GET', `/v2/pix/${encodeURIComponent(i.endToEndId)}`, pixSchema, undefined, {
          retry: true,
          notFoundIsNull: true,
        });
        notices.push(disputeNoticeOf(i, pix, now));
      }
      return notices;
    },
  };

  const webhookPath = `/v2/webhook/${encodeURIComponent(cfg.pix_key)}`;
  return {
    pixPayouts,
    pixPayoutCallbacks: efiCallbacks(cfg),
    pixDisputes,
    pixInfractionDefense: efiMedDefense(client, { lookbackDays: cfg.infraction_lookback_days }),
    webhooks: {
      async register(url, opts = {}) {
        await client.call(
          'putWebhook',
          'PUT',
          webhookPath,
          z.unknown(),
          { webhookUrl: url },
          {
            headers: opts.skipMtlsChecking ? { 'x-skip-mtls-checking': 'true' } : {},
          },
        );
      },
      get: () => client.call('getWebhook', 'GET', webhookPath, webhookSchema, undefined, { notFoundIsNull: true, retry: true }),
    },
    client,
  };
}
