/**
 * Between our mandates and API Pix's Pix Automático wire: the references derived from our ids (the recurrence's
 * `vinculo.contrato` from the mandate id, the charge's txid from the payment id, both reversible), the rec, solicrec
 * and cobr we ask for, and what a rec or a cobr read back means to us (the PSP's rejection codes mapped to ours).
 */
import type {
  MandateFrequency,
  MandateRetryPolicy,
  PixMandateChargeAttempt,
  PixMandateChargeRequest,
  PixMandateChargeState,
  PixMandateRequest,
  PixMandateState,
} from '../../../application/providers';
import { formatMinor } from '../../../domain/money';
import type { RecebedorConfig } from '../providers.config';
import { fromReference, toReference } from '../references';
import type { Cobr, CobrPutRequest, Rec, RecPostRequest, SolicRecPostRequest, Tentativa } from './api-pix.recurrence.schemas';
import { minorOf } from './api-pix.transformers';

/** `vinculo.contrato` (at most 35): `md` + the mandate id's 16 bytes in hex = 34 characters. */
export const recReferenceOf = (mandateId: string) => toReference(mandateId, 'md_', 'md');
export const mandateIdOfRecReference = (contrato: string) => fromReference(contrato, 'md_', 'md');

/**
 * A charge's txid: `rc` + the payment id's 16 bytes in hex = 34 characters, inside [a-zA-Z0-9]{26,35}. A cob's txid
 * of the same payment would start `pi` or `a2`..`a9` (txidOf): the two never collide, and a txid names its kind.
 */
export const cobrTxidOf = (paymentId: string) => toReference(paymentId, 'pi_', 'rc');
export const paymentIdOfCobrTxid = (txid: string) => fromReference(txid, 'pi_', 'rc');

export const PERIODICIDADE: Readonly<Record<MandateFrequency, RecPostRequest['calendario']['periodicidade']>> = {
  weekly: 'SEMANAL',
  monthly: 'MENSAL',
  quarterly: 'TRIMESTRAL',
  semiannual: 'SEMESTRAL',
  annual: 'ANUAL',
};

export const POLITICA: Readonly<Record<MandateRetryPolicy, RecPostRequest['politicaRetentativa']>> = {
  none: 'NAO_PERMITE',
  retry_3_in_7_days: 'PERMITE_3R_7D',
};

const devedorOf = (d: { document: string; name: string }) =>
  d.document.length === 11 ? { cpf: d.document, nome: d.name.slice(0, 140) } : { cnpj: d.document, nome: d.name.slice(0, 140) };

/** The rec for a mandate: the same fields on every call for one mandate. A fixed amount is `valorRec`; a variable one has none. */
export function recRequest(req: PixMandateRequest, loc?: number): RecPostRequest {
  const objeto = req.description.trim().slice(0, 35);
  return {
    vinculo: { ...(objeto ? { objeto } : {}), devedor: devedorOf(req.debtor), contrato: req.reference },
    calendario: {
      dataInicial: req.startDate,
      ...(req.endDate ? { dataFinal: req.endDate } : {}),
      periodicidade: PERIODICIDADE[req.frequency],
    },
    ...(req.amountMinor !== undefined ? { valor: { valorRec: formatMinor(req.amountMinor, 'BRL') } } : {}),
    politicaRetentativa: POLITICA[req.retryPolicy],
    ...(loc !== undefined ? { loc } : {}),
  };
}

/** Jornada 1's request to the payer's PSP: its ISPB, the payer's account there, and the payer's document. */
export function solicRecRequest(req: PixMandateRequest, idRec: string): SolicRecPostRequest {
  const payer = req.payer;
  if (!payer?.account) throw new RangeError('a Jornada 1 request needs the payer’s account');
  const doc = req.debtor.document.length === 11 ? { cpf: req.debtor.document } : { cnpj: req.debtor.document };
  return {
    idRec,
    calendario: { dataExpiracaoSolicitacao: new Date(req.approvalExpiresAt).toISOString() },
    destinatario: { conta: payer.account, ispbParticipante: payer.ispb, ...(payer.agency ? { agencia: payer.agency } : {}), ...doc },
  };
}

/** The cobr for a charge. `ajusteDiaUtil`: a due date on a non-business day settles on the next one (the spec's default). */
export function cobrRequest(req: PixMandateChargeRequest, recebedor: RecebedorConfig): CobrPutRequest {
  const info = req.description?.trim().slice(0, 140);
  return {
    idRec: req.providerMandateId,
    ...(info ? { infoAdicional: info } : {}),
    calendario: { dataDeVencimento: req.dueDate },
    valor: { original: formatMinor(req.amountMinor, 'BRL') },
    ajusteDiaUtil: true,
    recebedor: { conta: recebedor.conta, tipoConta: recebedor.tipoConta, ...(recebedor.agencia ? { agencia: recebedor.agencia } : {}) },
  };
}

/** When the rec reached `status` (its history's last entry of it), else the latest entry, else now. */
function whenRec(rec: Pick<Rec, 'atualizacao'>, status: string): string {
  const items = rec.atualizacao ?? [];
  const hit = [...items].reverse().find((a) => (a.status ?? a.nome) === status) ?? items[items.length - 1];
  return new Date(hit?.data ?? Date.now()).toISOString();
}

/** Who cancelled: the payer (in the app), the receiver (us, by PATCH), or a PSP (either side's). */
const CANCELLED_BY = {
  USUARIO_PAGADOR: 'payer',
  USUARIO_RECEBEDOR: 'receiver',
  PSP_PAGADOR: 'provider',
  PSP_RECEBEDOR: 'provider',
} as const;

/** A rec read back: CRIADA is pending the payer's approval; the others are the mandate's states. */
export function mandateStateOf(rec: Rec): PixMandateState {
  const providerMandateId = rec.idRec;
  switch (rec.status) {
    case 'CRIADA':
      return { kind: 'pending', providerMandateId };
    case 'APROVADA':
      return { kind: 'active', providerMandateId, at: whenRec(rec, 'APROVADA') };
    case 'REJEITADA':
      return { kind: 'rejected', providerMandateId, at: whenRec(rec, 'REJEITADA') };
    case 'EXPIRADA':
      return { kind: 'expired', providerMandateId, at: whenRec(rec, 'EXPIRADA') };
    case 'CANCELADA': {
      const solicitante = rec.encerramento?.cancelamento?.solicitante;
      return {
        kind: 'cancelled',
        providerMandateId,
        by: solicitante ? CANCELLED_BY[solicitante] : 'provider',
        at: whenRec(rec, 'CANCELADA'),
      };
    }
  }
}

/**
 * The PSP's rejection codes (SPI message catalogue, 2.9.0's list for a cobr and its attempts) as our failure codes.
 * The ISO 20022 meanings of AB10, AC05, AC06, AM02, AM09 and RC09 are settled; the Pix-specific codes' meanings are
 * not published in the API's spec, so they read as the general `declined_by_payer_bank` until a PSP's homologation
 * names them (the code itself stays in the state's message).
 *
 * | PSP code | ours                     | meaning                                                        |
 * |----------|--------------------------|----------------------------------------------------------------|
 * | AB10     | payer_bank_error         | error at the payer's PSP                                       |
 * | AC05     | account_closed           | the payer's account is closed                                  |
 * | AC06     | account_blocked          | the payer's account is blocked                                 |
 * | AM02     | amount_above_payer_limit | above the maximum the payer set for this recurrence           |
 * | AM09     | amount_mismatch          | not the recurrence's amount                                    |
 * | RC09     | payer_bank_invalid       | the payer's PSP (ISPB) is not a valid participant              |
 * | others   | declined_by_payer_bank   | the payer's PSP refused the attempt                            |
 * | (an attempt EXPIRADA, no code) | insufficient_funds | the day passed unpaid (no funds at the tries)      |
 * | (cobr EXPIRADA)                | expired / the last attempt's code | no attempt paid within the window   |
 * | (cobr CANCELADA by the payer or the payer's PSP) | payer_cancelled |                                     |
 */
export const REJECTION_CODES: Readonly<Record<string, string>> = {
  AB10: 'payer_bank_error',
  AC05: 'account_closed',
  AC06: 'account_blocked',
  AM02: 'amount_above_payer_limit',
  AM09: 'amount_mismatch',
  RC09: 'payer_bank_invalid',
};
export const failureCodeOf = (codigo: string) => REJECTION_CODES[codigo] ?? 'declined_by_payer_bank';

const ATTEMPT_OUTCOME: Readonly<Record<Tentativa['status'], PixMandateChargeAttempt['outcome']>> = {
  SOLICITADA: 'scheduled',
  AGENDADA: 'scheduled',
  PAGA: 'paid',
  REJEITADA: 'failed',
  EXPIRADA: 'failed',
  CANCELADA: 'failed',
};

export function attemptOf(t: Tentativa): PixMandateChargeAttempt {
  const outcome = ATTEMPT_OUTCOME[t.status];
  if (outcome !== 'failed') return { date: t.dataLiquidacao, outcome };
  const failureCode = t.rejeicao ? failureCodeOf(t.rejeicao.codigo) : t.status === 'CANCELADA' ? 'payer_cancelled' : 'insufficient_funds';
  return { date: t.dataLiquidacao, outcome, failureCode };
}

/** When the cobr reached CONCLUIDA (its Pix's horario, else its history's entry). */
function paidAtOf(cobr: Cobr): string {
  const pix = cobr.pix?.[0];
  if (pix) return new Date(pix.horario).toISOString();
  const hit = [...(cobr.atualizacao ?? [])].reverse().find((a) => (a.status ?? a.nome) === 'CONCLUIDA');
  return new Date(hit?.data ?? Date.now()).toISOString();
}

/**
 * A cobr read back. CRIADA and ATIVA are scheduled (ATIVA with a failed attempt waits for a retry under PERMITE_3R_7D);
 * CONCLUIDA is paid with its Pix (or its paid attempt's endToEndId when the PSP lists no Pix); REJEITADA and EXPIRADA
 * are failed; CANCELADA by the payer's side is failed (payer_cancelled), by the receiver's side cancelled.
 */
export function chargeStateOf(cobr: Cobr): PixMandateChargeState {
  const attempts = (cobr.tentativas ?? []).map(attemptOf);
  const lastFailed = [...attempts].reverse().find((a) => a.outcome === 'failed');
  switch (cobr.status) {
    case 'CRIADA':
    case 'ATIVA':
      return { kind: 'scheduled', attempts };
    case 'CONCLUIDA': {
      const pix = cobr.pix?.[0];
      const e2e = pix?.endToEndId ?? [...(cobr.tentativas ?? [])].reverse().find((t) => t.status === 'PAGA')?.endToEndId;
      const amountMinor = minorOf(pix?.valor ?? cobr.valor.original);
      // CONCLUIDA with no Pix and no paid attempt names no payment: it is not "paid" to us until it does.
      if (!e2e) return { kind: 'scheduled', attempts };
      return { kind: 'paid', endToEndId: e2e, amountMinor, paidAt: paidAtOf(cobr), attempts };
    }
    case 'REJEITADA': {
      const codigo = cobr.encerramento?.rejeicao?.codigo;
      const failureCode = codigo ? failureCodeOf(codigo) : (lastFailed?.failureCode ?? 'declined_by_payer_bank');
      return { kind: 'failed', failureCode, message: `the payer's PSP rejected the charge${codigo ? ` (${codigo})` : ''}`, attempts };
    }
    case 'EXPIRADA':
      return {
        kind: 'failed',
        failureCode: lastFailed?.failureCode ?? 'expired',
        message: 'no attempt of the charge was paid',
        attempts,
      };
    case 'CANCELADA': {
      const by = cobr.encerramento?.cancelamento?.solicitante;
      if (by === 'USUARIO_PAGADOR' || by === 'PSP_PAGADOR')
        return { kind: 'failed', failureCode: 'payer_cancelled', message: 'the charge was cancelled on the payer’s side', attempts };
      return { kind: 'cancelled', attempts };
    }
  }
}
