/**
 * Our schemas of the subset of API Pix v2 we use (bacen/pix-api openapi.yaml 2.9.0): the cob we create, read
 * back and remove, the Pix a callback announces, the devolução we request and read back, the webhook
 * registration, the OAuth2 token and the RFC 7807 problem. Written from the spec's field rules, not copied;
 * the spec's patterns are unanchored (and some of its examples fail them), so ours are anchored. Requests are
 * strict (an unknown field is a mismatch the fake PSP fails a test on); responses are loose (a PSP may add).
 */
import * as z from '../../../domain/zod';

const dateTime = z
  .string()
  .check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'must be an RFC 3339 date-time'));
const text = (max: number) => z.string().check(z.maxLength(max));

export const txidSchema = z.string().check(z.regex(/^[a-zA-Z0-9]{26,35}$/, 'must be 26 to 35 letters or digits'));
/** A Pix's own txid may be shorter (1 to 35) when it was not paid against a cob. */
const pixTxid = z.string().check(z.regex(/^[a-zA-Z0-9]{1,35}$/, 'must be 1 to 35 letters or digits'));
export const amountSchema = z.string().check(z.regex(/^\d{1,10}\.\d{2}$/, 'must be an amount with two decimals, e.g. 50.00'));
export const endToEndIdSchema = z.string().check(z.regex(/^[a-zA-Z0-9]{32}$/, 'must be 32 letters or digits'));
export const devolucaoIdSchema = z.string().check(z.regex(/^[a-zA-Z0-9]{1,35}$/, 'must be 1 to 35 letters or digits'));
export const cpfSchema = z.string().check(z.regex(/^\d{11}$/, 'must be 11 digits'));
/** 14 characters: digits, or the alphanumeric CNPJ the spec admits. */
export const cnpjSchema = z.string().check(z.regex(/^[0-9A-Z]{14}$/, 'must be 14 digits or capital letters'));

const pessoaFisica = z.strictObject({ cpf: cpfSchema, nome: text(200) });
const pessoaJuridica = z.strictObject({ cnpj: cnpjSchema, nome: text(200) });
const devedor = z.union([pessoaFisica, pessoaJuridica]);
const infoAdicionais = z.array(z.strictObject({ nome: text(50), valor: text(200) })).check(z.maxLength(50));

export const cobPutRequestSchema = z.strictObject({
  calendario: z.strictObject({ expiracao: z.number().check(z.int(), z.positive()) }),
  devedor: z.optional(devedor),
  loc: z.optional(z.strictObject({ id: z.number().check(z.int()) })),
  valor: z.strictObject({ original: amountSchema, modalidadeAlteracao: z.optional(z.union([z.literal(0), z.literal(1)])) }),
  chave: text(77).check(z.minLength(1)),
  solicitacaoPagador: z.optional(text(140)),
  infoAdicionais: z.optional(infoAdicionais),
});
export type CobPutRequest = z.infer<typeof cobPutRequestSchema>;

export const cobPatchRequestSchema = z.strictObject({
  calendario: z.optional(z.strictObject({ expiracao: z.number().check(z.int(), z.positive()) })),
  devedor: z.optional(devedor),
  loc: z.optional(z.strictObject({ id: z.number().check(z.int()) })),
  status: z.optional(z.literal('REMOVIDA_PELO_USUARIO_RECEBEDOR')),
  valor: z.optional(
    z.strictObject({ original: z.optional(amountSchema), modalidadeAlteracao: z.optional(z.union([z.literal(0), z.literal(1)])) }),
  ),
  chave: z.optional(text(77)),
  solicitacaoPagador: z.optional(text(140)),
  infoAdicionais: z.optional(infoAdicionais),
});
export type CobPatchRequest = z.infer<typeof cobPatchRequestSchema>;

export const cobStatusSchema = z.enum(['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP']);

export const devolucaoNaturezaSchema = z.enum(['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO']);
export const devolucaoStatusSchema = z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO']);

export const devolucaoRequestSchema = z.strictObject({
  valor: amountSchema,
  natureza: z.optional(z.enum(['ORIGINAL', 'RETIRADA'])),
  descricao: z.optional(text(140)),
});
export type DevolucaoRequest = z.infer<typeof devolucaoRequestSchema>;

export const devolucaoSchema = z.looseObject({
  id: devolucaoIdSchema,
  rtrId: z.string().check(z.regex(/^[a-zA-Z0-9]{32}$/, 'must be 32 letters or digits')),
  valor: amountSchema,
  natureza: z.optional(devolucaoNaturezaSchema),
  descricao: z.optional(text(140)),
  horario: z.looseObject({ solicitacao: dateTime, liquidacao: z.optional(dateTime) }),
  status: devolucaoStatusSchema,
  motivo: z.optional(text(140)),
});
export type Devolucao = z.infer<typeof devolucaoSchema>;

export const pixSchema = z.looseObject({
  endToEndId: endToEndIdSchema,
  txid: z.optional(pixTxid),
  valor: amountSchema,
  chave: z.optional(text(77)),
  horario: dateTime,
  infoPagador: z.optional(text(140)),
  devolucoes: z.optional(z.array(devolucaoSchema)),
});
export type Pix = z.infer<typeof pixSchema>;

export const cobSchema = z.looseObject({
  calendario: z.looseObject({ criacao: dateTime, expiracao: z.number().check(z.int(), z.positive()) }),
  txid: txidSchema,
  revisao: z.number().check(z.int(), z.gte(0)),
  loc: z.optional(
    z.looseObject({ id: z.number().check(z.int()), location: z.string(), tipoCob: z.enum(['cob', 'cobv']), criacao: z.optional(dateTime) }),
  ),
  location: z.optional(z.string().check(z.maxLength(77))),
  status: cobStatusSchema,
  devedor: z.optional(z.looseObject({ cpf: z.optional(cpfSchema), cnpj: z.optional(cnpjSchema), nome: z.optional(z.string()) })),
  valor: z.looseObject({ original: amountSchema, modalidadeAlteracao: z.optional(z.number()) }),
  chave: text(77),
  solicitacaoPagador: z.optional(text(140)),
  pixCopiaECola: z.optional(text(512)),
  pix: z.optional(z.array(pixSchema)),
});
export type Cob = z.infer<typeof cobSchema>;

/** What the PSP POSTs to `<registered webhookUrl>/pix`: one or more Pix received. */
export const pixCallbackSchema = z.looseObject({ pix: z.array(pixSchema).check(z.minLength(1)) });
export type PixCallback = z.infer<typeof pixCallbackSchema>;

export const webhookPutRequestSchema = z.strictObject({
  webhookUrl: z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL')),
});
/** GET /webhook/{chave}: 2.9.0 names the receiver's cnpj; earlier PSPs answer the chave. */
export const webhookSchema = z.looseObject({
  webhookUrl: z.string(),
  chave: z.optional(z.string()),
  cnpj: z.optional(z.string()),
  criacao: z.optional(dateTime),
});

export const tokenResponseSchema = z.looseObject({
  access_token: z.string().check(z.minLength(1)),
  token_type: z.string(),
  expires_in: z.number().check(z.positive()),
  scope: z.optional(z.string()),
});

export const problemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().check(z.int()),
  detail: z.optional(z.string()),
  correlationId: z.optional(z.string()),
  violacoes: z.optional(z.array(z.looseObject({ razao: z.string(), propriedade: z.optional(z.string()), valor: z.optional(z.string()) }))),
});
