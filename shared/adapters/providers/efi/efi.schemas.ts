/**
 * Our schemas of the subset of Efí's API we use (PIX payouts and MED), written from these sources, never copied:
 * - Efí's "Envio e Pagamento Pix" page (dev.efipay.com.br/docs/api-pix/envio-pagamento-pix; its Docusaurus source
 *   as kept in github.com/mpaivaana/error-report docs/api-pix/envio-pagamento-pix.md): the send body (`valor`,
 *   `pagador.chave` + `infoPagador`, `favorecido.chave` [+ `cpf`|`cnpj`] or `favorecido.contaBanco` {nome,
 *   cpf|cnpj, codigoBanco (ISPB), agencia, conta, tipoConta}), its 201 answer ({idEnvio, e2eId, valor,
 *   horario.solicitacao, status}), the error bodies `{nome, mensagem}`, the read-back by idEnvio and its 404
 *   problem (`PixEnviadoNaoEncontrado`);
 * - Efí's "Webhooks" page (docs/api-pix/webhooks.md there): the callback of a send, `{pix: [{endToEndId, chave,
 *   tipo: "SOLICITACAO", status, valor, horario, gnExtras: {idEnvio, erro?: {codigo, origem, motivo}}}]}`;
 * - the official SDK sdk-node-apis-efi 2.0.1 (npm; dist/esm/constants/endpoints.js and dist/esm/types/pix.js):
 *   the paths and versions (pixSend PUT /v3/gn/pix/:idEnvio, pixSendDetailId GET
 *   /v2/gn/pix/enviados/id-envio/:idEnvio, medList GET /v2/gn/infracoes, pixDetailReceived GET /v2/pix/:e2eId),
 *   the statuses EM_PROCESSAMENTO | REALIZADO | NAO_REALIZADO, `tipoConta` cacc | svgs, and the infraction list
 *   ({parametros, infracoes: [{idInfracao, endToEndId, status, valor, tipoSituacao?, dadosAnalise:
 *   {abertura, prazoFinalizacao, finalizacao?}, ...}]}) with statuses ABERTA, EM_DEFESA, ACEITA, REJEITADA,
 *   CANCELADA_EFI.
 * - the MED defense (POST /v2/gn/infracoes/:idInfracao/defesa, scope gn.infractions.write): Efí's "Endpoints
 *   exclusivos Efí" page (docs/api-pix/endpoints-exclusivos-efi.md in the same Docusaurus source) and the SDK 1.2.28
 *   (github.com/efipay/sdk-node-apis-efi, src/lib/constants.js `medDefense`, dist/types/methods/pix.d.ts): the body
 *   `{analise: "aceito" | "rejeitado", justificativa}`, its 201 answered with a line of text (no JSON), its refusals
 *   as RFC 7807 problems (400 InfracoesConsultaInvalida, 404 InfracaoNaoEncontrada, 409 InfracaoOperacaoInvalida
 *   for a defense already made or another document, 422 InfracaoOperacaoInvalida once the deadline passed), and the
 *   infraction's `defesa`, `justificativaAnalista` and `dadosAnalise.recebimentoDefesa`. Neither source gives a
 *   length for `justificativa`: DEFENSE_TEXT_MAX is ours.
 * Where the sources disagree the answer schemas take both (the send answer names the end-to-end id `e2eId` in
 * Efí's page and `endToEndId` in SDK 2.0.1; an infraction's `valor` is a number in the SDK and a string in
 * integrators' code; the list is an object in the SDK and an array in integrators' code). Requests are strict
 * (the fake Efí fails a test on an unknown field); answers are loose (Efí may add fields).
 */
import * as z from '../../../domain/zod';
import { amountSchema, cnpjSchema, cpfSchema } from '../api-pix/api-pix.schemas';

const text = (max: number) => z.string().check(z.maxLength(max));
const dateTime = z
  .string()
  .check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'must be an RFC 3339 date-time'));

/** Ours, 1 to 35 letters or digits: the send's idempotency key (a second PUT with it is refused 409 by Efí). */
export const idEnvioSchema = z.string().check(z.regex(/^[a-zA-Z0-9]{1,35}$/, 'must be 1 to 35 letters or digits'));
/** Efí's examples carry end-to-end ids shorter than the 32 characters of the standard, so answers take 1 to 35. */
const e2eId = z.string().check(z.regex(/^[a-zA-Z0-9]{1,35}$/, 'must be 1 to 35 letters or digits'));
/** A bank's ISPB: 8 digits (Efí's own is 09089356). */
export const ispbSchema = z.string().check(z.regex(/^\d{8}$/, 'must be an 8-digit ISPB'));
export const sendStatusSchema = z.enum(['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO']);
export type SendStatus = z.infer<typeof sendStatusSchema>;

const pixKey = text(77).check(z.minLength(1));
const nome = text(200).check(z.minLength(1));
const bankFields = {
  nome,
  codigoBanco: ispbSchema,
  agencia: z.string().check(z.regex(/^\d{1,4}$/, 'must be 1 to 4 digits')),
  conta: z.string().check(z.regex(/^\d{1,20}$/, 'must be 1 to 20 digits')),
  tipoConta: z.enum(['cacc', 'svgs']),
};

/** The beneficiary: a Pix key (with the document Efí checks against the key's owner), or a bank account. */
export const favorecidoSchema = z.union([
  z.strictObject({ chave: pixKey, cpf: cpfSchema }),
  z.strictObject({ chave: pixKey, cnpj: cnpjSchema }),
  z.strictObject({ contaBanco: z.strictObject({ ...bankFields, cpf: cpfSchema }) }),
  z.strictObject({ contaBanco: z.strictObject({ ...bankFields, cnpj: cnpjSchema }) }),
]);
export type Favorecido = z.infer<typeof favorecidoSchema>;

export const sendRequestSchema = z.strictObject({
  valor: amountSchema,
  pagador: z.strictObject({ chave: pixKey, infoPagador: z.optional(text(140)) }),
  favorecido: favorecidoSchema,
});
export type SendRequest = z.infer<typeof sendRequestSchema>;

/** PUT /v3/gn/pix/:idEnvio, 201. */
export const sendAnswerSchema = z.looseObject({
  idEnvio: idEnvioSchema,
  e2eId: z.optional(e2eId),
  endToEndId: z.optional(e2eId),
  valor: amountSchema,
  horario: z.looseObject({ solicitacao: dateTime }),
  status: sendStatusSchema,
});
export type SendAnswer = z.infer<typeof sendAnswerSchema>;

/** A return (devolução) the beneficiary's bank made of a sent Pix, as the read-back lists it. */
const sentReturnSchema = z.looseObject({
  rtrId: z.optional(z.string()),
  valor: amountSchema,
  horario: z.optional(z.union([dateTime, z.looseObject({ solicitacao: z.optional(dateTime), liquidacao: z.optional(dateTime) })])),
  status: z.optional(z.string()),
});

/** GET /v2/gn/pix/enviados/id-envio/:idEnvio, 200 (the beneficiary comes back masked; we read nothing of it). */
export const sentPixSchema = z.looseObject({
  endToEndId: z.optional(z.nullable(e2eId)),
  idEnvio: idEnvioSchema,
  valor: amountSchema,
  chave: z.optional(z.string()),
  status: sendStatusSchema,
  horario: z.looseObject({ solicitacao: dateTime, liquidacao: z.optional(z.nullable(dateTime)) }),
  favorecido: z.optional(z.looseObject({})),
  devolucoes: z.optional(z.array(sentReturnSchema)),
});
export type SentPix = z.infer<typeof sentPixSchema>;

/** One item of a callback to `<webhook>/pix`: a send (tipo SOLICITACAO, gnExtras.idEnvio) or a received Pix. */
const callbackItemSchema = z.looseObject({
  endToEndId: z.optional(z.nullable(z.string())),
  tipo: z.optional(z.string()),
  status: z.optional(z.string()),
  valor: z.optional(z.string()),
  gnExtras: z.optional(
    z.looseObject({
      idEnvio: z.optional(z.string()),
      erro: z.optional(z.looseObject({ codigo: z.optional(z.string()) })),
    }),
  ),
});
export const callbackSchema = z.looseObject({ pix: z.array(callbackItemSchema).check(z.minLength(1)) });
export type EfiCallback = z.infer<typeof callbackSchema>;

/** Efí's own error body (its `mensagem` is prose and never leaves the client). */
export const efiErrorSchema = z.looseObject({ nome: z.string(), mensagem: z.optional(z.string()) });

export const infractionStatusSchema = z.enum(['ABERTA', 'EM_DEFESA', 'ACEITA', 'REJEITADA', 'CANCELADA_EFI']);
export type InfractionStatus = z.infer<typeof infractionStatusSchema>;

/** Efí's id of an infraction (a UUID in its pages). */
export const idInfracaoSchema = z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be an identifier'));

export const infractionSchema = z.looseObject({
  idInfracao: idInfracaoSchema,
  endToEndId: e2eId,
  status: infractionStatusSchema,
  valor: z.optional(z.union([z.number(), z.string()])),
  razao: z.optional(z.string()),
  tipoSituacao: z.optional(z.string()),
  dadosAnalise: z.optional(
    z.looseObject({
      abertura: z.optional(dateTime),
      prazoFinalizacao: z.optional(dateTime),
      /** When Efí received the receiver's defense. */
      recebimentoDefesa: z.optional(z.nullable(dateTime)),
      finalizacao: z.optional(z.nullable(dateTime)),
    }),
  ),
  /** The receiver's defense text, once one was made. */
  defesa: z.optional(z.nullable(z.string())),
  justificativaAnalista: z.optional(z.nullable(z.string())),
  criadoEm: z.optional(dateTime),
  atualizadoEm: z.optional(dateTime),
});
export type Infraction = z.infer<typeof infractionSchema>;

const paginacao = z.looseObject({
  paginaAtual: z.number().check(z.int(), z.gte(0)),
  quantidadeDePaginas: z.number().check(z.int(), z.gte(0)),
});
/** GET /v2/gn/infracoes: the SDK's object with `infracoes`, or a bare array. */
export const infractionListSchema = z.union([
  z.looseObject({ parametros: z.optional(z.looseObject({ paginacao: z.optional(paginacao) })), infracoes: z.array(infractionSchema) }),
  z.array(infractionSchema),
]);
export type InfractionList = z.infer<typeof infractionListSchema>;

/** Query of the infraction list: a time window (RFC 3339) and the page. */
export const infractionQuerySchema = z.strictObject({
  inicio: dateTime,
  fim: dateTime,
  'paginacao.paginaAtual': z.optional(z.string().check(z.regex(/^\d{1,4}$/))),
});

/** PUT /v2/webhook/:chave (the API Pix webhook registration Efí serves; sends are told on the payer key's webhook). */
export const webhookPutRequestSchema = z.strictObject({
  webhookUrl: z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL')),
});

/**
 * The longest defense text we send. Efí's pages and SDK give no length; 2000 is the central bank's limit on the
 * analysis details of an infraction report in the DICT, to which Efí forwards the receiver's analysis (an assumption
 * Efí's homologation settles). Longer text is refused before any call, never cut.
 */
export const DEFENSE_TEXT_MAX = 2000;

/** POST /v2/gn/infracoes/:idInfracao/defesa: `rejeitado` contests the infraction, `aceito` agrees the Pix goes back. */
export const defenseRequestSchema = z.strictObject({
  analise: z.enum(['aceito', 'rejeitado']),
  justificativa: z.string().check(z.minLength(1), z.maxLength(DEFENSE_TEXT_MAX)),
});
export type DefenseRequest = z.infer<typeof defenseRequestSchema>;
