/**
 * Pix Automático through API Pix 2.9.0 (DESIGN.md 9.3): a recurrence (`rec`) per mandate, approved by the payer in
 * the bank app through a recurrence QR (Jornada 2: `locrec` + `rec`) or a request pushed to the payer's PSP
 * (Jornada 1: `rec` + `solicrec`); a charge (`cobr`) per cycle, keyed by a txid of ours; the callbacks' parsers; and
 * the recurrence and charge webhooks' registration.
 *
 * POST /rec carries no id of ours, so a create must never be sent twice: it is sent once (no retry after a 5xx), and
 * every create first looks for a rec that already carries the mandate's reference (`vinculo.contrato`) among those
 * made since the mandate was, resuming it instead (a create whose answer was lost, a crash between the call and its
 * commit). The same listing is how get() finds a rec whose id we never learnt.
 */
import * as z from '../../../domain/zod';
import {
  ProviderRejected,
  ProviderUnavailable,
  type PixMandateCallbacks,
  type PixMandateChargeState,
  type PixMandateConnector,
  type PixMandateCreated,
  type PixMandateRequest,
} from '../../../application/providers';
import { logger } from '../../../observability';
import type { ApiPixConfig, RecebedorConfig } from '../providers.config';
import type { ApiPixClient } from './api-pix.client';
import {
  cobrCallbackSchema,
  cobrNotificationSchema,
  cobrSchema,
  locRecSchema,
  recCallbackSchema,
  recNotificationSchema,
  recSchema,
  recsConsultadasSchema,
  solicRecSchema,
  webhookRecSchema,
  type Rec,
} from './api-pix.recurrence.schemas';
import {
  chargeStateOf,
  cobrRequest,
  cobrTxidOf,
  mandateStateOf,
  paymentIdOfCobrTxid,
  recReferenceOf,
  recRequest,
  solicRecRequest,
} from './api-pix.recurrence.transformers';
import { webhookTokenMatcher } from './api-pix.webhook-token';

/**
 * The days before its due date inside which a charge's payment instruction is sent: from 10 to 2 calendar days
 * (Banco Central do Brasil, Instrução Normativa BCB nº 436/2023 art. 4, now IN BCB nº 513/2024 as amended by IN BCB
 * nº 614/2025: the receiver's PSP sends the instruction between ten and two days before the settlement date).
 */
export const CHARGE_WINDOW_DAYS = { min: 2, max: 10 } as const;

/**
 * Where a rec of a mandate is looked for: from 10 minutes before the mandate's creation (clocks differ) to 3 days after
 * it (a create is only ever sent while the mandate awaits its approval), at most 20 pages of 100.
 */
const LOOKUP_SLACK_MS = 10 * 60_000;
const LOOKUP_SPAN_MS = 3 * 86_400_000;
const LOOKUP_MAX_PAGES = 20;
const PAGE_SIZE = 100;

/** Our connector, and what it does beyond the port: a retry of a failed charge on a later day (PERMITE_3R_7D). */
export interface ApiPixMandateConnector extends PixMandateConnector {
  /** POST /cobr/{txid}/retentativa/{date}: a new attempt on `date` (YYYY-MM-DD); refused unless the rec allows retries. */
  retryCharge(reference: string, date: string): Promise<PixMandateChargeState>;
}

export interface ApiPixRecurrence {
  readonly mandates: ApiPixMandateConnector;
  readonly callbacks: PixMandateCallbacks;
  readonly webhooks: {
    /** PUT /webhookrec and PUT /webhookcobr: the PSP posts to `url` + `/rec` and `url` + `/cobr`. */
    register(url: string): Promise<void>;
    get(): Promise<{ rec: string | null; cobr: string | null }>;
  };
}

/** The callbacks' token check and parsers: ids to read back, never states taken from the body. */
export function apiPixRecurrenceCallbacks(cfg: Pick<ApiPixConfig, 'webhook_token'>): PixMandateCallbacks {
  return {
    tokenMatches: webhookTokenMatcher(cfg.webhook_token),
    parseRecurrences(body) {
      const r = z.safeParse(recCallbackSchema, body);
      if (!r.success) return null;
      const ids = r.data.recs.flatMap((raw) => {
        const n = z.safeParse(recNotificationSchema, raw);
        return n.success ? [n.data.idRec] : [];
      });
      return { providerMandateIds: [...new Set(ids)], ignored: r.data.recs.length - ids.length };
    },
    parseCharges(body) {
      const r = z.safeParse(cobrCallbackSchema, body);
      if (!r.success) return null;
      const txids = r.data.cobsr.flatMap((raw) => {
        const n = z.safeParse(cobrNotificationSchema, raw);
        return n.success ? [n.data.txid] : [];
      });
      return { references: [...new Set(txids)], ignored: r.data.cobsr.length - txids.length };
    },
    paymentIdOf: paymentIdOfCobrTxid,
  };
}

export function apiPixRecurrence(
  cfg: ApiPixConfig & { recebedor: RecebedorConfig },
  client: ApiPixClient,
  provider: string,
): ApiPixRecurrence {
  const recPath = (idRec: string) => `/rec/${encodeURIComponent(idRec)}`;
  const cobrPath = (txid: string) => `/cobr/${encodeURIComponent(txid)}`;
  const mustHave = <T>(v: T | null, op: string): T => {
    if (v === null) throw new ProviderUnavailable(provider, op, 'the PSP answered 404 for an object it should hold');
    return v;
  };

  const readRec = (idRec: string) => client.call('getRec', 'GET', recPath(idRec), recSchema, undefined, true);

  /** The rec carrying our reference among those the PSP made from `since` on (GET /rec, every page). */
  async function findRec(reference: string, since: string): Promise<Rec | null> {
    const inicio = new Date(Date.parse(since) - LOOKUP_SLACK_MS);
    const fim = new Date(Math.max(Math.min(Date.now() + 60_000, Date.parse(since) + LOOKUP_SPAN_MS), inicio.getTime() + 60_000));
    const hits: Rec[] = [];
    for (let page = 0; ; page++) {
      // A rec not seen is not "none": an unread page could hold it, and a create must not follow a wrong "not found".
      if (page >= LOOKUP_MAX_PAGES) throw new ProviderUnavailable(provider, 'listRec', 'too many recs in the window to search');
      const query = new URLSearchParams({
        inicio: inicio.toISOString(),
        fim: fim.toISOString(),
        'paginacao.paginaAtual': String(page),
        'paginacao.itensPorPagina': String(PAGE_SIZE),
      });
      const list = mustHave(await client.call('listRec', 'GET', `/rec?${query.toString()}`, recsConsultadasSchema), 'listRec');
      hits.push(...list.recs.filter((r) => r.vinculo.contrato === reference));
      if (page + 1 >= list.parametros.paginacao.quantidadeDePaginas) break;
    }
    if (hits.length > 1) logger.warn('API Pix holds more than one rec for one mandate', { provider, count: hits.length });
    // The one that can still become or is the mandate: an open one first, else the latest.
    return hits.find((r) => r.status === 'CRIADA' || r.status === 'APROVADA') ?? hits[hits.length - 1] ?? null;
  }

  /** Jornada 2: the rec's QR (GET /rec/{idRec} answers it in dadosQR once its location is set). */
  async function qrOf(idRec: string): Promise<PixMandateCreated> {
    const rec = mustHave(await readRec(idRec), 'getRec');
    const pixCode = rec.dadosQR?.pixCopiaECola;
    if (!pixCode) throw new ProviderUnavailable(provider, 'getRec', 'the rec has no dadosQR.pixCopiaECola');
    return { providerMandateId: idRec, approval: { type: 'pix_qr', pixCode } };
  }

  /** Jornada 1: the request to the payer's PSP; one already made for the rec (listed in its `solicitacao`) is reused. */
  async function requestOf(req: PixMandateRequest, rec: Rec | null, idRec: string): Promise<PixMandateCreated> {
    const open = (rec?.solicitacao ?? []).find((s) => !['REJEITADA', 'EXPIRADA', 'CANCELADA'].includes(s.status));
    let solic = open;
    try {
      solic ??= mustHave(
        await client.call('postSolicRec', 'POST', '/solicrec', solicRecSchema, solicRecRequest(req, idRec), false, false),
        'postSolicRec',
      );
    } catch (e) {
      // The request refused, the rec stays (CRIADA, found again by our reference): not "nothing was created".
      if (e instanceof ProviderRejected) throw new ProviderRejected(provider, e.operation, e.code, e.status, false, e.payerRefusal);
      throw e;
    }
    return { providerMandateId: idRec, approval: { type: 'pix_request', requestId: solic.idSolicRec } };
  }

  const mandates: ApiPixMandateConnector = {
    provider: { name: provider, reference: recReferenceOf, chargeReference: cobrTxidOf },
    chargeWindowDays: CHARGE_WINDOW_DAYS,

    async create(req) {
      // The spec asks the payer's account of a Jornada 1 request: without it nothing is sent.
      if (req.payer && !req.payer.account) throw new ProviderRejected(provider, 'postSolicRec', 'payer_account_required', 400, true);
      const existing = await findRec(req.reference, req.createdAt);
      // Already ended (rejected, expired, cancelled): nothing to approve; the mandate reads it with get().
      if (existing && existing.status !== 'CRIADA' && existing.status !== 'APROVADA')
        throw new ProviderRejected(provider, 'postRec', `rec_${existing.status.toLowerCase()}`, 409);
      if (req.payer) {
        const rec = existing ?? mustHave(await client.call('postRec', 'POST', '/rec', recSchema, recRequest(req), false, false), 'postRec');
        const full = existing ? await readRec(existing.idRec) : null;
        return requestOf(req, full, rec.idRec);
      }
      if (existing) return qrOf(existing.idRec);
      const loc = mustHave(await client.call('postLocRec', 'POST', '/locrec', locRecSchema, undefined, false, false), 'postLocRec');
      const rec = mustHave(await client.call('postRec', 'POST', '/rec', recSchema, recRequest(req, loc.id), false, false), 'postRec');
      return qrOf(rec.idRec);
    },

    async get({ providerMandateId, reference, createdAt }) {
      const rec = providerMandateId ? await readRec(providerMandateId) : await findRec(reference, createdAt);
      return rec ? mandateStateOf(rec) : { kind: 'not_found' };
    },

    async cancel(idRec) {
      const before = await readRec(idRec);
      if (!before) return { kind: 'not_found' };
      if (before.status !== 'CRIADA' && before.status !== 'APROVADA') return mandateStateOf(before);
      try {
        const after = await client.call('patchRec', 'PATCH', recPath(idRec), recSchema, { status: 'CANCELADA' });
        return mandateStateOf(mustHave(after, 'patchRec'));
      } catch (e) {
        // Ended meanwhile (the payer cancelled, it expired): the PSP refuses the PATCH; what it holds now decides.
        const now: Rec | null = await readRec(idRec);
        if (now && now.status !== 'CRIADA' && now.status !== 'APROVADA') return mandateStateOf(now);
        throw e;
      }
    },

    async createCharge(req) {
      const txid = req.reference;
      try {
        const cobr = await client.call('putCobr', 'PUT', cobrPath(txid), cobrSchema, cobrRequest(req, cfg.recebedor));
        return chargeStateOf(mustHave(cobr, 'putCobr'));
      } catch (e) {
        // A PSP that refuses a second PUT of one txid still holds the first: the same charge of the same rec is ours.
        if (!(e instanceof ProviderRejected)) throw e;
        const held = await client.call('getCobr', 'GET', cobrPath(txid), cobrSchema, undefined, true);
        if (held && held.idRec === req.providerMandateId && held.calendario.dataDeVencimento === req.dueDate) return chargeStateOf(held);
        throw e;
      }
    },

    async getCharge(reference) {
      const cobr = await client.call('getCobr', 'GET', cobrPath(reference), cobrSchema, undefined, true);
      return cobr ? chargeStateOf(cobr) : { kind: 'not_found' };
    },

    async retryCharge(reference, date) {
      const path = `${cobrPath(reference)}/retentativa/${encodeURIComponent(date)}`;
      const cobr = await client.call('postRetentativa', 'POST', path, cobrSchema, undefined, false, false);
      return chargeStateOf(mustHave(cobr, 'postRetentativa'));
    },
  };

  return {
    mandates,
    callbacks: apiPixRecurrenceCallbacks(cfg),
    webhooks: {
      async register(url) {
        await client.call('putWebhookRec', 'PUT', '/webhookrec', z.unknown(), { webhookUrl: url });
        await client.call('putWebhookCobr', 'PUT', '/webhookcobr', z.unknown(), { webhookUrl: url });
      },
      async get() {
        const [rec, cobr] = await Promise.all([
          client.call('getWebhookRec', 'GET', '/webhookrec', webhookRecSchema, undefined, true),
          client.call('getWebhookCobr', 'GET', '/webhookcobr', webhookRecSchema, undefined, true),
        ]);
        return { rec: rec?.webhookUrl ?? null, cobr: cobr?.webhookUrl ?? null };
      },
    },
  };
}
