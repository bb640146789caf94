/**
 * The STP connector (SPEI, Mexico): live payouts to a CLABE (registraOrden, signed), their read-back by
 * claveRastreo, and the order-state callback's token check and parser. Refusals are mapped to our failure
 * codes; STP's own texts never travel further than the log's code.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from '../../../domain/zod';
import {
  type PayoutCallbacks,
  type PayoutConnector,
  type ProviderOrder,
  type ProviderOrderState,
  type SpeiDepositConnector,
  ProviderRejected,
  ProviderUnavailable,
} from '../../../application/providers';
import { logger } from '../../../observability';
import { STP_RETURN_WATCH_SECONDS, type StpConfig } from '../providers.config';
import { consultaCadena, montoOf, ordenCadena, type OrdenFields } from './stp.cadena';
import { STP, stpClient, type StpClient } from './stp.client';
import { maskTail } from '../../../domain/payouts/masking';
import { STP_INSTITUTION } from './stp.institutions';
import { stpDeposits } from './stp.deposits';
import { consultaAnswerSchema, estadoCallbackSchema, registraAnswerSchema, type OrdenUnsigned } from './stp.schemas';
import { SealedOrderError } from './stp.sealer';
import { stpSigner, type StpSigner } from './stp.signer';
import { claimedKind, claveRastreoOf, ordenOf, orderStateOf, payoutIdOfClaveRastreo } from './stp.transformers';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** STP's refusal ids (resultado.id) as our failure codes; 0 (signature, mandatory field, no service) is not a refusal of the order. */
function refusalCode(id: number): string {
  switch (id) {
    case -7: // the account does not exist
    case -9: // the institution is not valid
    case -11: // the account type is not valid for the account
    case -22: // the CLABE does not belong to the institution
      return 'invalid_account';
    case -20:
      return 'amount_not_allowed';
    case -24:
      return 'same_account';
    case -200:
      return 'rejected_by_compliance';
    default:
      return 'rejected_by_provider';
  }
}

/** What a payout keeps of its order in clear: the account and the document masked, never whole. */
export function orderSummary(o: OrdenUnsigned): ProviderOrder['summary'] {
  return {
    claveRastreo: o.claveRastreo,
    institucionContraparte: o.institucionContraparte,
    cuentaBeneficiario: maskTail(o.cuentaBeneficiario),
    rfcCurpBeneficiario: o.rfcCurpBeneficiario === 'ND' ? 'ND' : maskTail(o.rfcCurpBeneficiario),
    monto: o.monto,
    referenciaNumerica: o.referenciaNumerica,
  };
}

/** The order a payout sealed, opened under its reference (the claveRastreo, the seal's additional data). */
function unsealOrden(order: Pick<ProviderOrder, 'reference' | 'sealed'>, signer: StpSigner): OrdenUnsigned {
  const o = JSON.parse(signer.sealer.open(order.sealed, order.reference)) as OrdenUnsigned;
  if (o.claveRastreo !== order.reference) throw new SealedOrderError('another order');
  return o;
}

/** The signed body of an order: its fields and the firma of its cadena (monto written with two decimals). */
export function signedOrden(order: OrdenUnsigned, signer: StpSigner) {
  const fields: OrdenFields = { ...order, monto: montoOf(Math.round(order.monto * 100)) };
  return { ...order, firma: signer.sign(ordenCadena(fields)) };
}

export function stpCallbacks(cfg: Pick<StpConfig, 'webhook_token' | 'empresa'>): PayoutCallbacks {
  const expected = digest(cfg.webhook_token);
  return {
    tokenMatches: (token) => timingSafeEqual(digest(token), expected),
    parseState(body) {
      const r = z.safeParse(estadoCallbackSchema, body);
      if (!r.success || r.data.empresa !== cfg.empresa) return null;
      // The order by STP's own id first (the use case looks it up); our folioOrigen, or the claveRastreo when STP
      // sends it, as the fallback for an order whose id we never kept.
      const reference = r.data.folioOrigen?.trim() || r.data.claveRastreo?.trim() || undefined;
      return { reference, orderId: String(r.data.id), claimed: claimedKind(r.data.estado) };
    },
    payoutIdOf: payoutIdOfClaveRastreo,
  };
}

export { stpDeposits };

export interface StpConnectors {
  readonly speiPayouts: PayoutConnector;
  readonly speiPayoutCallbacks: PayoutCallbacks;
  readonly speiDeposits: SpeiDepositConnector;
  readonly signer: StpSigner;
  readonly client: StpClient;
}

export function stpConnectors(cfg: StpConfig, client: StpClient = stpClient(cfg)): StpConnectors {
  const signer = stpSigner(cfg.private_key_pem, cfg.private_key_passphrase);

  const speiPayouts: PayoutConnector = {
    provider: { name: STP, reference: claveRastreoOf },
    returnWatchSeconds: cfg.return_watch_seconds ?? STP_RETURN_WATCH_SECONDS,
    prepare(req) {
      const p = ordenOf(req, cfg);
      if ('invalid' in p) return p;
      const clave = p.order.claveRastreo;
      return { order: { reference: clave, summary: orderSummary(p.order), sealed: signer.sealer.seal(JSON.stringify(p.order), clave) } };
    },
    async register(order: Pick<ProviderOrder, 'reference' | 'sealed'>) {
      let orden: OrdenUnsigned;
      try {
        orden = unsealOrden(order, signer);
      } catch (e) {
        if (!(e instanceof SealedOrderError)) throw e;
        // Sealed under a private key since replaced: the order cannot be sent again as it was; the payout waits.
        logger.error('STP order could not be unsealed for a resend', { provider: STP, operation: 'registra', reason: e.message });
        throw new ProviderUnavailable(STP, 'registra', 'The sealed order could not be opened');
      }
      const body = signedOrden(orden, signer);
      const a = await client.call('registra', 'PUT', '/ordenPago/registra', body, registraAnswerSchema, false);
      const { id, descripcionError = '' } = a.resultado;
      if (id > 0) return { orderId: String(id) };
      if (id === -1 && /ya fue utilizada/i.test(descripcionError)) return { duplicate: true };
      if (id === 0) {
        // Our signature or a field STP requires: a configuration or code problem, not a refusal of this order.
        logger.error('STP did not take an order: signature or mandatory field', { provider: STP, operation: 'registra', stp_id: id });
        throw new ProviderUnavailable(STP, 'registra', 'STP refused the request itself (signature or a mandatory field)');
      }
      const code = refusalCode(id);
      logger.warn('STP refused an order', { provider: STP, operation: 'registra', stp_id: id, code });
      throw new ProviderRejected(STP, 'registra', code, 200);
    },
    async get(reference): Promise<ProviderOrderState> {
      const q = { empresa: cfg.empresa, claveRastreo: reference, institucionOperante: Number(STP_INSTITUTION) };
      const body = { ...q, firma: signer.sign(consultaCadena(q)) };
      const a = await client.call('consulta', 'POST', '/ordenPago/consOrdEnvRastreo', body, consultaAnswerSchema, true);
      const { id, ordenPago } = a.resultado;
      if (id === -100) return { kind: 'not_found' };
      if (id === 0) throw new ProviderUnavailable(STP, 'consulta', 'STP refused the query itself (signature or a mandatory field)');
      if (id < 0 || !ordenPago) throw new ProviderUnavailable(STP, 'consulta', `STP refused the query (${id})`);
      if (ordenPago.claveRastreo.trim() !== reference) throw new ProviderUnavailable(STP, 'consulta', 'STP answered another order');
      return orderStateOf(ordenPago);
    },
  };

  return { speiPayouts, speiPayoutCallbacks: stpCallbacks(cfg), speiDeposits: stpDeposits(cfg, signer, client), signer, client };
}
