/**
 * Live SPEI pay-ins through STP: a CLABE under our STP account per payment, the abono callback's token check
 * and parser, and the read-back that confirms a deposit before anything is settled on it: STP's order query
 * by claveRastreo for a received order (efws `consultaOrden`, `tipoOrden` R), signed with the configured key.
 * A callback body alone is never trusted: only a settled received order with the callback's claveRastreo,
 * CLABE and amount confirms it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from '../../../domain/zod';
import {
  ProviderUnavailable,
  type DepositConfirmation,
  type IncomingDeposit,
  type SpeiDepositConnector,
} from '../../../application/providers';
import type { StpConfig } from '../providers.config';
import { consultaOrdenCadena } from './stp.cadena';
import { STP, type StpClient } from './stp.client';
import { abonoCallbackSchema, consultaOrdenAnswerSchema } from './stp.schemas';
import type { StpSigner } from './stp.signer';
import { depositOf, paymentClabe, sevenDigitsOf } from './stp.transformers';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** STP's states of an order that has settled (a received order reads TLQ; LQ as for sent ones). */
const SETTLED = new Set(['LQ', 'TLQ']);
/** consultaOrden's `estado` for "no order found" (answered with HTTP 400). */
const NOT_FOUND = 6;

/** The efws root: configured, or base_url's origin + /efws/API (STP's production layout). */
export const efwsRoot = (cfg: Pick<StpConfig, 'base_url' | 'efws_url'>) =>
  (cfg.efws_url ?? `${new URL(cfg.base_url).origin}/efws/API`).replace(/\/$/, '');

export function stpDeposits(
  cfg: Pick<StpConfig, 'webhook_token' | 'empresa' | 'cuenta_ordenante' | 'base_url' | 'efws_url'>,
  signer: StpSigner,
  client: StpClient,
): SpeiDepositConnector {
  const expected = digest(cfg.webhook_token);
  const url = `${efwsRoot(cfg)}/consultaOrden`;
  return {
    provider: { name: STP },
    clabeFor: (paymentId, attempt) => paymentClabe(cfg.cuenta_ordenante, sevenDigitsOf(paymentId, attempt)),
    tokenMatches: (token) => timingSafeEqual(digest(token), expected),
    parseDeposit(body) {
      const r = z.safeParse(abonoCallbackSchema, body);
      if (!r.success || (r.data.empresa !== undefined && r.data.empresa !== cfg.empresa)) return null;
      return depositOf(r.data);
    },
    async confirm(d: IncomingDeposit): Promise<DepositConfirmation> {
      // A claveRastreo STP cannot look up (outside its alphabet) cannot be confirmed: it is not STP's.
      if (!/^[A-Za-z0-9]{1,30}$/.test(d.trackingKey)) return 'not_found';
      const q = { empresa: cfg.empresa, claveRastreo: d.trackingKey, tipoOrden: 'R' as const, fechaOperacion: d.operationDate };
      const body = { ...q, firma: signer.sign(consultaOrdenCadena(q)) };
      const a = await client.call('consultaOrden', 'POST', url, body, consultaOrdenAnswerSchema, true, [400]);
      if (a.estado === NOT_FOUND || (a.estado === 0 && !a.respuesta)) return 'not_found';
      // Any other refusal (the firma, a field): the query did not run, so nothing is known.
      if (a.estado !== 0 || !a.respuesta) throw new ProviderUnavailable(STP, 'consultaOrden', `STP refused the query (${a.estado})`);
      const o = a.respuesta;
      const same =
        o.claveRastreo.trim() === d.trackingKey &&
        o.cuentaBeneficiario.trim() === d.clabe &&
        Math.round(o.monto * 100) === d.amountMinor &&
        SETTLED.has(o.estado);
      return same ? 'confirmed' : 'differs';
    },
  };
}
