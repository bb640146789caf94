/**
 * Between our domain and API Pix's wire: references derived from our ids (txid from a payment id, devolução id
 * from a refund id, both reversible), the cob we ask for, and what a cob or a devolução read back means to us:
 * our refunds by their id, and the returns the PSP made for fraud (natureza MED_FRAUDE / MED_OPERACIONAL).
 */
import type {
  PixCharge,
  PixChargeRequest,
  PixChargeState,
  PixFraudReturn,
  ProviderRefundState,
  ReceivedPix,
} from '../../../application/providers';
import { formatMinor } from '../../../domain/money';
import type { Cob, CobPutRequest, Devolucao, Pix } from './api-pix.schemas';
import { fromReference, toReference } from '../references';

/**
 * txid `pi` + 32 hex = 34 characters, inside API Pix's [a-zA-Z0-9]{26,35}. A later attempt of the same payment
 * (a failover, DESIGN.md 9.2) takes `a` and its number in place of `pi` (`a2` + the same 32 hex): 35 characters
 * leave no room to append it, and the txid still names the payment and the attempt.
 */
export const txidOf = (paymentId: string, attempt = 1) => toReference(paymentId, 'pi_', attemptTag(attempt));
export const paymentIdOfTxid = (txid: string) => fromReference(txid, 'pi_', /^a[2-9]/.test(txid) ? txid.slice(0, 2) : 'pi');
function attemptTag(attempt: number): string {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > 9) throw new RangeError('an attempt is 1 to 9');
  return attempt === 1 ? 'pi' : `a${attempt}`;
}
/** Devolução id `re` + 32 hex = 34 characters, inside [a-zA-Z0-9]{1,35}: chosen by us, so it is the idempotency key. */
export const devolucaoIdOf = (refundId: string) => toReference(refundId, 're_', 're');
export const refundIdOfDevolucao = (id: string) => fromReference(id, 're_', 're');

/** "50.00" -> 5000; API Pix amounts are BRL with two decimals. */
export const minorOf = (valor: string) => Math.round(Number(valor) * 100);

/** The cob for a charge: the same fields on every call for one payment. */
export function cobRequest(req: PixChargeRequest, pixKey: string): CobPutRequest {
  const seconds = Math.max(60, Math.round((Date.parse(req.expiresAt) - Date.parse(req.createdAt)) / 1000));
  const debtor = req.debtor
    ? req.debtor.document.length === 11
      ? { cpf: req.debtor.document, nome: req.debtor.name.slice(0, 200) }
      : { cnpj: req.debtor.document, nome: req.debtor.name.slice(0, 200) }
    : undefined;
  return {
    calendario: { expiracao: seconds },
    ...(debtor ? { devedor: debtor } : {}),
    valor: { original: formatMinor(req.amountMinor, 'BRL') },
    chave: pixKey,
    solicitacaoPagador: (req.description?.trim() || `Pagamento a ${req.merchantName}`).slice(0, 140),
  };
}

const chargeOf = (cob: Cob): PixCharge => ({
  pixCode: cob.pixCopiaECola ?? '',
  txid: cob.txid,
  details: {
    revisao: String(cob.revisao),
    ...(cob.loc?.location || cob.location ? { location: cob.loc?.location ?? cob.location ?? '' } : {}),
  },
});

export function refundStateOf(d: Devolucao): ProviderRefundState | null {
  const refundId = refundIdOfDevolucao(d.id);
  if (!refundId) return null;
  if (d.status === 'DEVOLVIDO') return { refundId, kind: 'succeeded', at: d.horario.liquidacao ?? d.horario.solicitacao };
  if (d.status === 'NAO_REALIZADO') return { refundId, kind: 'failed', reason: 'declined_by_bank' };
  return { refundId, kind: 'pending' };
}

const isMed = (d: Devolucao) => d.natureza === 'MED_FRAUDE' || d.natureza === 'MED_OPERACIONAL';

/** A MED return that reached the payer (DEVOLVIDO), never one of our refunds (those carry our ids). */
export function fraudReturnOf(d: Devolucao): PixFraudReturn | null {
  if (!isMed(d) || d.status !== 'DEVOLVIDO' || refundIdOfDevolucao(d.id)) return null;
  return { id: d.id, amountMinor: minorOf(d.valor), at: new Date(d.horario.liquidacao ?? d.horario.solicitacao).toISOString() };
}

/** A callback's Pix names a return that is not one of our refunds: read the Pix back (the body is only a hint). */
export const returnHintOf = (p: Pix) => (p.devolucoes ?? []).some((d) => isMed(d) || !refundIdOfDevolucao(d.id));

const receivedOf = (p: Pix): ReceivedPix => ({
  endToEndId: p.endToEndId,
  amountMinor: minorOf(p.valor),
  paidAt: new Date(p.horario).toISOString(),
  refunds: (p.devolucoes ?? []).map(refundStateOf).filter((r): r is ProviderRefundState => r !== null),
  fraudReturns: (p.devolucoes ?? []).map(fraudReturnOf).filter((r): r is PixFraudReturn => r !== null),
});

/** A cob read back: ATIVA is open until criacao + expiracao; CONCLUIDA is paid with its Pix; REMOVIDA_* is removed. */
export function chargeStateOf(cob: Cob): PixChargeState {
  const received = (cob.pix ?? []).map(receivedOf);
  if (cob.status === 'CONCLUIDA') return { kind: 'paid', charge: chargeOf(cob), received };
  if (cob.status === 'ATIVA') {
    const expiresAt = new Date(Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000).toISOString();
    return { kind: 'open', charge: chargeOf(cob), expiresAt };
  }
  return { kind: 'removed', received };
}
