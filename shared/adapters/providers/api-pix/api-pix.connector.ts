/**
 * The API Pix connector (the central bank's standard API every Brazilian PSP exposes): live PIX charges
 * (cob), their read-back and removal, refunds (devoluções), and the callback's token check and parser.
 */
import * as z from '../../../domain/zod';
import {
  type Connectors,
  type PixCallbacks,
  type PixConnector,
  type PixRefundConnector,
  ProviderUnavailable,
} from '../../../application/providers';
import type { ApiPixConfig } from '../providers.config';
import { API_PIX_PSP, apiPixClient, type ApiPixClient, type ApiPixPsp } from './api-pix.client';
import { cobSchema, devolucaoSchema, pixCallbackSchema, pixSchema, webhookSchema, type Pix } from './api-pix.schemas';
import { chargeStateOf, cobRequest, devolucaoIdOf, paymentIdOfTxid, refundStateOf, returnHintOf, txidOf } from './api-pix.transformers';
import { formatMinor } from '../../../domain/money';
import { webhookTokenMatcher } from './api-pix.webhook-token';
import { apiPixRecurrence, type ApiPixRecurrence } from './api-pix.recurrence';

/**
 * The callback's token check and parser. `mixed`: the key's webhook also carries other items (Efí: its sends, in
 * another shape, on the same webhook), so an item that is not a received Pix is ignored rather than the body refused.
 */
export function apiPixCallbacks(cfg: Pick<ApiPixConfig, 'webhook_token'>, opts: { mixed?: boolean } = {}): PixCallbacks {
  const itemOf = (p: Pix) =>
    p.txid ? [{ reference: p.txid, endToEndId: p.endToEndId, ...(returnHintOf(p) ? { returnHint: true } : {}) }] : [];
  return {
    tokenMatches: webhookTokenMatcher(cfg.webhook_token),
    parse(body) {
      if (opts.mixed) {
        const r = z.safeParse(mixedCallbackSchema, body);
        if (!r.success) return null;
        const items = r.data.pix.flatMap((raw) => {
          const p = z.safeParse(pixSchema, raw);
          return p.success ? itemOf(p.data) : [];
        });
        return { items, ignored: r.data.pix.length - items.length };
      }
      const r = z.safeParse(pixCallbackSchema, body);
      if (!r.success) return null;
      const items = r.data.pix.flatMap(itemOf);
      return { items, ignored: r.data.pix.length - items.length };
    },
    paymentIdOf: paymentIdOfTxid,
  };
}

const mixedCallbackSchema = z.looseObject({ pix: z.array(z.unknown()).check(z.minLength(1)) });

export interface ApiPixConnectors extends Required<Pick<Connectors, 'pix' | 'pixRefunds' | 'pixCallbacks'>> {
  /**
   * The provider's webhook registration (the ops CLI): the key's Pix webhook (the PSP posts to `url` + `/pix`) and,
   * with Pix Automático, the recurrence and charge webhooks (`url` + `/rec`, `url` + `/cobr`).
   */
  readonly webhooks: {
    register(url: string): Promise<void>;
    get(): Promise<{ webhookUrl: string } | null>;
  };
  /** Pix Automático: only when the block names the merchant's receiving account (`recebedor`) and this is API Pix's block. */
  readonly recurrence: ApiPixRecurrence | null;
  readonly client: ApiPixClient;
}

/**
 * One PSP's API Pix connectors. `psp` names the document's block whose PSP this is (`api_pix`, or `efi` serving
 * pay-ins through the same standard API, DESIGN.md 9.2): each payment and refund keeps that name, so its read-backs,
 * callbacks and refunds go back to the PSP that holds it.
 */
export function apiPixConnectors(cfg: ApiPixConfig, client?: ApiPixClient, psp: ApiPixPsp = API_PIX_PSP): ApiPixConnectors {
  client ??= apiPixClient(cfg, undefined, psp);
  const API_PIX = psp.name;
  const cobPath = (txid: string) => `/cob/${encodeURIComponent(txid)}`;
  const devolucaoPath = (e2e: string, id: string) => `/pix/${encodeURIComponent(e2e)}/devolucao/${encodeURIComponent(id)}`;
  const mustHave = <T>(v: T | null, op: string): T => {
    if (v === null) throw new ProviderUnavailable(API_PIX, op, 'the PSP answered 404 for an object it should hold');
    return v;
  };

  const pix: PixConnector = {
    provider: { name: API_PIX, reference: txidOf },
    async createCharge(req) {
      const cob = mustHave(
        await client.call('putCob', 'PUT', cobPath(req.reference ?? txidOf(req.paymentId)), cobSchema, cobRequest(req, cfg.pix_key)),
        'putCob',
      );
      if (!cob.pixCopiaECola) throw new ProviderUnavailable(API_PIX, 'putCob', 'the cob has no pixCopiaECola');
      return {
        pixCode: cob.pixCopiaECola,
        txid: cob.txid,
        details: { revisao: String(cob.revisao), location: cob.loc?.location ?? cob.location ?? '' },
      };
    },
    async getCharge(reference) {
      const cob = await client.call('getCob', 'GET', cobPath(reference), cobSchema, undefined, true);
      return cob ? chargeStateOf(cob) : { kind: 'not_found' };
    },
    async removeCharge(reference) {
      const before = await client.call('getCob', 'GET', cobPath(reference), cobSchema, undefined, true);
      if (!before) return { kind: 'not_found' };
      if (before.status !== 'ATIVA') return chargeStateOf(before);
      try {
        const after = await client.call('patchCob', 'PATCH', cobPath(reference), cobSchema, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
        return chargeStateOf(mustHave(after, 'patchCob'));
      } catch (e) {
        // Paid between the read and the removal: the PSP refuses the PATCH; what it holds now decides.
        const now = await client.call('getCob', 'GET', cobPath(reference), cobSchema, undefined, true);
        if (now && now.status !== 'ATIVA') return chargeStateOf(now);
        throw e;
      }
    },
  };

  const pixRefunds: PixRefundConnector = {
    provider: { name: API_PIX, reference: devolucaoIdOf },
    async send({ endToEndId, refundId, amountMinor, description }) {
      const d = await client.call('putDevolucao', 'PUT', devolucaoPath(endToEndId, devolucaoIdOf(refundId)), devolucaoSchema, {
        valor: formatMinor(amountMinor, 'BRL'),
        natureza: 'ORIGINAL',
        ...(description ? { descricao: description.slice(0, 140) } : {}),
      });
      const state = refundStateOf(mustHave(d, 'putDevolucao'));
      if (!state) throw new ProviderUnavailable(API_PIX, 'putDevolucao', 'the devolução answered carries another id');
      return state;
    },
    async get({ endToEndId, refundId }) {
      const d = await client.call(
        'getDevolucao',
        'GET',
        devolucaoPath(endToEndId, devolucaoIdOf(refundId)),
        devolucaoSchema,
        undefined,
        true,
      );
      return d ? refundStateOf(d) : null;
    },
  };

  const recebedor = psp.name === API_PIX_PSP.name ? cfg.recebedor : undefined;
  const recurrence = recebedor ? apiPixRecurrence({ ...cfg, recebedor }, client, API_PIX) : null;

  return {
    pix,
    pixRefunds,
    pixCallbacks: apiPixCallbacks(cfg, { mixed: psp.name !== API_PIX_PSP.name }),
    webhooks: {
      async register(url) {
        await client.call('putWebhook', 'PUT', `/webhook/${encodeURIComponent(cfg.pix_key)}`, z.unknown(), { webhookUrl: url });
        await recurrence?.webhooks.register(url);
      },
      get: () => client.call('getWebhook', 'GET', `/webhook/${encodeURIComponent(cfg.pix_key)}`, webhookSchema, undefined, true),
    },
    recurrence,
    client,
  };
}
