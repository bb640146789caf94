/**
 * Between our domain and Efí's wire: the idEnvio derived from a payout id (reversible), the send we ask for (by
 * Pix key with the owner's document, or by bank account), what a send read back means to us, Efí's refusals and
 * the SPI reason codes of a failed send as our failure codes (never Efí's text), and an infraction (MED) read
 * back as a dispute signal of ours, and its defense (MED) both ways.
 */
import type { PixDisputeNotice, PixInfractionState, ProviderOrder, ProviderOrderState } from '../../../application/providers';
import { formatMinor } from '../../../domain/money';
import { maskKey, maskTail } from '../../../domain/payouts/masking';
import * as z from '../../../domain/zod';
import type { Pix } from '../api-pix/api-pix.schemas';
import { paymentIdOfTxid } from '../api-pix/api-pix.transformers';
import { fromReference, toReference } from '../references';
import {
  defenseRequestSchema,
  sendRequestSchema,
  type DefenseRequest,
  type Favorecido,
  type Infraction,
  type SendRequest,
  type SentPix,
} from './efi.schemas';

/** idEnvio `po` + the payout id's 16 bytes in hex: 34 characters, inside Efí's 1-35 alphanumerics, and back. */
/**
 * idEnvio `po` + 32 hex; a later attempt of the same payout (a failover, DESIGN.md 9.2) takes `a` and its number in
 * place of `po` (`a2` + the same 32 hex), inside Efí's [a-zA-Z0-9]{1,35}.
 */
export const idEnvioOf = (payoutId: string, attempt = 1) => toReference(payoutId, 'po_', attempt === 1 ? 'po' : attemptTag(attempt));
export const payoutIdOfIdEnvio = (idEnvio: string) => fromReference(idEnvio, 'po_', /^a[2-9]/.test(idEnvio) ? idEnvio.slice(0, 2) : 'po');
function attemptTag(attempt: number): string {
  if (!Number.isInteger(attempt) || attempt < 2 || attempt > 9) throw new RangeError('an attempt is 1 to 9');
  return `a${attempt}`;
}

/** "12.34" -> 1234. */
export const minorOf = (valor: string | number) => Math.round(Number(valor) * 100);

export type PixKeyType = 'cpf' | 'cnpj' | 'email' | 'phone' | 'random';

/** A PIX payout as Efí is asked to pay it (full key, account and document: never logged, stored only sealed). */
export interface PixPayoutOrderRequest {
  readonly payoutId: string;
  /** The idEnvio of a later attempt (idEnvioOf(payoutId, attempt)); absent: the first attempt's. */
  readonly reference?: string;
  readonly amountMinor: number;
  readonly beneficiaryName: string;
  /** CPF or CNPJ, punctuation allowed. */
  readonly beneficiaryDocument: string;
  readonly pixKey?: { readonly type: PixKeyType; readonly value: string };
  /** `bankCode`: the 8-digit ISPB, or a 3-digit COMPE code of a bank in COMPE_TO_ISPB. */
  readonly bankAccount?: {
    readonly bankCode: string;
    readonly agency: string;
    readonly account: string;
    readonly accountType: 'checking' | 'savings';
  };
  readonly concept: string | null;
}

/**
 * COMPE code -> ISPB of the banks most payouts go to (Efí's send takes the ISPB). Source: the central bank's list
 * of Pix/STR participants; Efí's own ISPB 09089356 is also in its send example. Any other bank: give the ISPB.
 */
export const COMPE_TO_ISPB: Readonly<Record<string, string>> = {
  '001': '00000000', // Banco do Brasil
  '033': '90400888', // Santander
  '077': '00416968', // Inter
  '104': '00360305', // Caixa Econômica Federal
  '237': '60746948', // Bradesco
  '260': '18236120', // Nu Pagamentos
  '341': '60701190', // Itaú Unibanco
  '364': '09089356', // Efí (Gerencianet)
};

export function ispbOf(bankCode: string): string | null {
  const c = bankCode.trim();
  if (/^\d{8}$/.test(c)) return c;
  return COMPE_TO_ISPB[c.padStart(3, '0')] ?? null;
}

/** Text Efí shows the beneficiary (infoPagador): control characters dropped, spaces collapsed, at most 140. */
export function infoText(value: string | null): string | undefined {
  const t = (value ?? '')
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 140)
    .trim();
  return t || undefined;
}

export type PreparedSend = { readonly request: SendRequest } | { readonly invalid: string };

/** The send for a payout, or why this beneficiary cannot be paid through Efí (nothing is written then). */
export function sendRequestOf(req: PixPayoutOrderRequest, payerKey: string): PreparedSend {
  const doc = req.beneficiaryDocument.replace(/[\s./-]/g, '').toUpperCase();
  const owner = /^\d{11}$/.test(doc) ? { cpf: doc } : /^[0-9A-Z]{12}\d{2}$/.test(doc) ? { cnpj: doc } : null;
  if (!owner) return { invalid: 'The beneficiary document is not a CPF or a CNPJ.' };
  if (Boolean(req.pixKey) === Boolean(req.bankAccount)) return { invalid: 'Give either a PIX key or a bank account.' };
  let favorecido: Favorecido;
  if (req.pixKey) {
    const key = req.pixKey.value.trim();
    if (!key || key.length > 77) return { invalid: 'The PIX key is empty or longer than 77 characters.' };
    favorecido = { chave: key, ...owner } as Favorecido;
  } else {
    const b = req.bankAccount!;
    const codigoBanco = ispbOf(b.bankCode);
    if (!codigoBanco) return { invalid: 'The bank code is not one we can pay by account (give the bank’s 8-digit ISPB).' };
    const agencia = b.agency.replace(/[\s-]/g, '');
    const conta = b.account.replace(/[\s-]/g, '');
    if (!/^\d{1,4}$/.test(agencia)) return { invalid: 'The branch (agência) must be 1 to 4 digits.' };
    if (!/^\d{1,20}$/.test(conta)) return { invalid: 'The account number must be 1 to 20 digits.' };
    const nome = infoText(req.beneficiaryName)?.slice(0, 200);
    if (!nome) return { invalid: 'The beneficiary name is empty.' };
    const tipoConta = b.accountType === 'savings' ? 'svgs' : 'cacc';
    favorecido = { contaBanco: { nome, ...owner, codigoBanco, agencia, conta, tipoConta } } as Favorecido;
  }
  const info = infoText(req.concept);
  const request: SendRequest = {
    valor: formatMinor(req.amountMinor, 'BRL'),
    pagador: { chave: payerKey, ...(info ? { infoPagador: info } : {}) },
    favorecido,
  };
  // Our own schema of Efí's rules is the last word: what it refuses is never sent.
  if (!z.safeParse(sendRequestSchema, request).success) return { invalid: 'The payout cannot be written as an Efí send.' };
  return { request };
}

/** What a payout keeps of its send in clear: key, account and document masked, never whole. */
export function sendSummary(idEnvio: string, r: SendRequest, keyType?: PixKeyType): ProviderOrder['summary'] {
  const f = r.favorecido;
  const doc = 'chave' in f ? ('cpf' in f ? f.cpf : f.cnpj) : 'cpf' in f.contaBanco ? f.contaBanco.cpf : f.contaBanco.cnpj;
  return {
    idEnvio,
    valor: r.valor,
    documento: maskKey(doc.length === 11 ? 'cpf' : 'cnpj', doc),
    ...('chave' in f
      ? { chave: maskKey(keyType ?? '', f.chave) }
      : {
          codigoBanco: f.contaBanco.codigoBanco,
          agencia: f.contaBanco.agencia,
          conta: maskTail(f.contaBanco.conta),
          tipoConta: f.contaBanco.tipoConta,
        }),
  };
}

/**
 * A send read back, as our state: EM_PROCESSAMENTO pending; NAO_REALIZADO cancelled (the read-back names no
 * reason); REALIZADO settled, or returned once the beneficiary's bank has sent back the whole amount (a partial
 * return leaves it settled: our payouts have no partial return).
 */
export function sentStateOf(s: SentPix): ProviderOrderState {
  const orderId = s.endToEndId ?? undefined;
  if (s.status === 'EM_PROCESSAMENTO') return { kind: 'pending', orderId };
  if (s.status === 'NAO_REALIZADO') return { kind: 'cancelled', orderId, reason: 'rejected_by_provider' };
  const returned = (s.devolucoes ?? []).filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + minorOf(d.valor), 0);
  const at = s.horario.liquidacao ?? s.horario.solicitacao;
  if (returned > 0 && returned >= minorOf(s.valor)) return { kind: 'returned', orderId, at, reason: 'returned_by_beneficiary_bank' };
  return { kind: 'settled', orderId, at };
}

/**
 * Efí's answer to a send that did not take it, as what we do about it:
 *  - duplicate: the idEnvio is already a send (409 id_envio_duplicado): an earlier send got through; read it back;
 *  - rejected: a definite no about this payout, with our failure code (the payout fails, the amount is credited back);
 *  - misconfigured: a no about our account or our request, not about the payout (payer key not ours or without
 *    webhook, account document blocked, a body Efí finds invalid): the payout stays processing and ops are paged.
 * `page`: worth waking someone (our float at Efí, our configuration or our code), not a merchant's beneficiary.
 * Sources: Efí's send page (400 documento_bloqueado, chave_invalida, chave_nao_pertence_ao_documento,
 * valor_invalido; 409 id_envio_duplicado; 422 pagamento_negado); integrators' code (404
 * chave_favorecido_nao_encontrada). Our assumptions, in no source: `saldo_insuficiente` (Efí's pages name no
 * balance refusal of a send; the SPI's AM04 after it is in spiReasonCode) and `webhook_nao_encontrado` (a payer key
 * without webhook, which Efí requires for sends). Homologation settles both.
 */
export type SendRefusal =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'rejected'; readonly code: string; readonly page: boolean }
  | { readonly kind: 'misconfigured'; readonly page: true };

export function sendRefusalOf(status: number, name: string): SendRefusal {
  if (status === 409 || name === 'id_envio_duplicado') return { kind: 'duplicate' };
  switch (name) {
    case 'chave_favorecido_nao_encontrada':
    case 'chave_nao_encontrada':
      return { kind: 'rejected', code: 'invalid_account', page: false };
    case 'chave_nao_pertence_ao_documento':
      return { kind: 'rejected', code: 'beneficiary_mismatch', page: false };
    case 'pagamento_negado':
      return { kind: 'rejected', code: 'rejected_by_provider', page: false };
    case 'saldo_insuficiente':
      return { kind: 'rejected', code: 'provider_balance_insufficient', page: true };
    case 'chave_invalida': // the payer key is not the authenticated account's
    case 'documento_bloqueado':
    case 'valor_invalido':
    case 'json_invalido':
    case 'webhook_nao_encontrado':
      return { kind: 'misconfigured', page: true };
    default:
      return { kind: 'rejected', code: 'rejected_by_provider', page: false };
  }
}

/**
 * A failed send's SPI reason code (a callback's gnExtras.erro.codigo, e.g. AC03 in Efí's webhook page; the
 * codes are the SPI's pacs.002 rejection reasons) as our failure code: only a hint until the read-back says
 * NAO_REALIZADO.
 */
export function spiReasonCode(codigo: string | undefined): string | null {
  switch ((codigo ?? '').toUpperCase()) {
    case '':
      return null;
    case 'AC03': // account number missing or invalid
    case 'AC06': // account blocked
    case 'AC07': // account closed
    case 'AC14': // wrong account type
      return 'invalid_account';
    case 'BE01': // document not consistent with the account's owner
      return 'beneficiary_mismatch';
    case 'AM02': // amount above the allowed limit
      return 'amount_not_allowed';
    case 'AM04': // the payer's (our) balance does not cover it
      return 'provider_balance_insufficient';
    case 'RR04': // regulatory reason
      return 'rejected_by_compliance';
    default:
      return 'rejected_by_provider';
  }
}

const REASONS: Readonly<Record<string, string>> = {
  golpe: 'scam',
  'aquisicao da conta': 'account_takeover',
  coercao: 'coercion',
  'acesso fraudulento': 'fraudulent_access',
};

export function infractionReason(tipoSituacao: string | undefined): string {
  const t = (tipoSituacao ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();
  return REASONS[t] ?? 'other';
}

/** The returns a received Pix had because of a MED (natureza MED_FRAUDE / MED_OPERACIONAL, DEVOLVIDO), in minor units. */
export function medReturnedMinor(pix: Pick<Pix, 'devolucoes'> | null): number {
  return (pix?.devolucoes ?? [])
    .filter((d) => (d.natureza === 'MED_FRAUDE' || d.natureza === 'MED_OPERACIONAL') && d.status === 'DEVOLVIDO')
    .reduce((sum, d) => sum + minorOf(d.valor), 0);
}

/**
 * An infraction read back with its Pix (whose txid names our payment, and whose MED returns say whether money
 * left) as a notice:
 *  - a MED return made: lost, with the amount returned;
 *  - open or under defense (ABERTA, EM_DEFESA), or accepted with no return yet (ACEITA): withdrawn (the
 *    funds are held while the case is open), with the reason and the deadline;
 *  - closed without a return (REJEITADA, CANCELADA_EFI): won.
 */
export function disputeNoticeOf(i: Infraction, pix: Pick<Pix, 'devolucoes' | 'txid'> | null, now: Date): PixDisputeNotice {
  const medReturned = medReturnedMinor(pix);
  const base = {
    endToEndId: i.endToEndId,
    paymentId: pix?.txid ? paymentIdOfTxid(pix.txid) : null,
    providerReference: i.idInfracao,
    reasonCode: infractionReason(i.tipoSituacao),
    deadline: i.dadosAnalise?.prazoFinalizacao ?? null,
  };
  const at = i.atualizadoEm ?? i.dadosAnalise?.finalizacao ?? i.criadoEm ?? now.toISOString();
  if (medReturned > 0) return { ...base, key: `${i.idInfracao}:lost`, signal: 'lost', amountMinor: medReturned, at };
  // The amount the infraction claims (it may be part of the Pix), when Efí gives a usable one.
  const claimed = i.valor === undefined ? NaN : minorOf(i.valor);
  const amountMinor = Number.isSafeInteger(claimed) && claimed > 0 ? claimed : null;
  if (i.status === 'REJEITADA' || i.status === 'CANCELADA_EFI')
    return { ...base, key: `${i.idInfracao}:won`, signal: 'won', amountMinor, at };
  return { ...base, key: `${i.idInfracao}:withdrawn`, signal: 'withdrawn', amountMinor, at: i.dadosAnalise?.abertura ?? at };
}

/**
 * The merchant's defense text as Efí's `justificativa`: control characters dropped, runs of spaces and blank lines
 * collapsed, trimmed (paragraphs kept). Sent with `analise: "rejeitado"` (we contest the infraction). Empty or longer
 * than DEFENSE_TEXT_MAX: invalid, never cut.
 */
export function defenseRequestOf(text: string): { readonly request: DefenseRequest } | { readonly invalid: string } {
  const justificativa = text
    .replace(/\r\n?/g, '\n')
    .replace(/\p{Cf}/gu, '')
    .replace(/[^\P{Cc}\n]/gu, ' ')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const request: DefenseRequest = { analise: 'rejeitado', justificativa };
  if (!justificativa) return { invalid: 'The defense text is empty.' };
  if (!z.safeParse(defenseRequestSchema, request).success) return { invalid: 'The defense text is too long for Efí.' };
  return { request };
}

const words = (t: string) => t.replace(/\s+/g, ' ').trim();

/**
 * The defense an infraction shows: none; ours (its `defesa` is our text, whitespace aside; or it is defended,
 * `EM_DEFESA` or a `recebimentoDefesa`, without showing a text, which we take as ours: the answer to our POST may
 * have been lost); or another (a different text, e.g. one typed in Efí's own app).
 */
export function shownDefense(i: Infraction, justificativa: string): 'none' | 'ours' | 'another' {
  const shown = i.defesa?.trim();
  if (shown) return words(shown) === words(justificativa) ? 'ours' : 'another';
  return i.status === 'EM_DEFESA' || i.dadosAnalise?.recebimentoDefesa ? 'ours' : 'none';
}

/** Decided by Efí: accepted (a MED return may follow), rejected or cancelled. No defense is taken any more. */
export const infractionDecided = (i: Pick<Infraction, 'status'>) =>
  i.status === 'ACEITA' || i.status === 'REJEITADA' || i.status === 'CANCELADA_EFI';

/**
 * An infraction read back with its Pix, as the port's state (the same reading as disputeNoticeOf):
 *  - a MED return of the Pix made: closed, `returned`, at the last return's settlement;
 *  - REJEITADA or CANCELADA_EFI without a return: closed, `not_returned`, at its end (finalizacao);
 *  - otherwise (ABERTA, EM_DEFESA, or ACEITA with no return yet: the payer's bank still has to ask for it) open,
 *    defended once Efí shows a defense (EM_DEFESA, a `defesa`, a `recebimentoDefesa`), with its deadline.
 */
export function infractionStateOf(i: Infraction, pix: Pick<Pix, 'devolucoes'> | null, now: Date): PixInfractionState {
  if (medReturnedMinor(pix) > 0) {
    const times = (pix?.devolucoes ?? [])
      .filter((d) => (d.natureza === 'MED_FRAUDE' || d.natureza === 'MED_OPERACIONAL') && d.status === 'DEVOLVIDO')
      .map((d) => d.horario.liquidacao ?? d.horario.solicitacao)
      .sort();
    return { kind: 'closed', outcome: 'returned', at: times[times.length - 1] ?? now.toISOString() };
  }
  if (i.status === 'REJEITADA' || i.status === 'CANCELADA_EFI')
    return { kind: 'closed', outcome: 'not_returned', at: i.dadosAnalise?.finalizacao ?? i.atualizadoEm ?? now.toISOString() };
  const defended = i.status === 'EM_DEFESA' || Boolean(i.defesa?.trim()) || Boolean(i.dadosAnalise?.recebimentoDefesa);
  return { kind: 'open', defended, deadline: i.dadosAnalise?.prazoFinalizacao ?? null };
}

/**
 * Efí's refusal of a defense as our code word (its problem types, never its text): 404 the infraction is not the
 * account's; 422 the deadline passed; 409 a defense already made or another document (the connector reads the
 * infraction back to tell them apart); 400 our request off Efí's schema (our defect: paged).
 */
export function defenseRefusalOf(status: number): string {
  switch (status) {
    case 404:
      return 'infraction_not_found';
    case 409:
      return 'defense_refused';
    case 422:
      return 'defense_deadline_passed';
    case 400:
      return 'defense_invalid';
    default:
      return 'rejected_by_provider';
  }
}
