/**
 * Our schemas of API Pix 2.9.0's Pix Automático (bacen/pix-api openapi.yaml): the location of a recurrence
 * (`/locrec`), the recurrence (`/rec`), its confirmation request to the payer's PSP (`/solicrec`), its charges
 * (`/cobr`, with their attempts), the two webhooks and the callback bodies they carry. Written from the spec's
 * field rules; where the YAML cannot be satisfied as written (a required field that does not exist, a `oneOf` every
 * value matches, an example that breaks its own schema) these follow its examples and descriptions, each patch
 * listed in docs/live-providers.md ("API Pix 2.9.0: Pix Automático"). Requests are strict (the fake PSP fails a test
 * on an unknown field); answers and callbacks are loose (a PSP may add).
 */
import * as z from '../../../domain/zod';
import { amountSchema, cnpjSchema, cpfSchema, endToEndIdSchema, txidSchema } from './api-pix.schemas';

const dateTime = z
  .string()
  .check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'must be an RFC 3339 date-time'));
export const isoDateSchema = z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a YYYY-MM-DD date'));
const text = (max: number) => z.string().check(z.maxLength(max));

/** RAxxxxxxxxyyyyMMddkkkkkkkkkkk: 29 letters or digits (2.9.0 admits alphanumeric ISPBs). */
export const recIdSchema = z.string().check(z.regex(/^[a-zA-Z0-9]{29}$/, 'must be 29 letters or digits'));
/** SCxxxxxxxxyyyyMMddkkkkkkkkkkk. */
export const solicRecIdSchema = z.string().check(z.regex(/^[a-zA-Z0-9]{29}$/, 'must be 29 letters or digits'));
export const ispbSchema = z.string().check(z.regex(/^[0-9A-Z]{8}$/, 'must be 8 digits or capital letters'));

export const periodicidadeSchema = z.enum(['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL']);
export const politicaRetentativaSchema = z.enum(['NAO_PERMITE', 'PERMITE_3R_7D']);
export const recStatusSchema = z.enum(['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA']);
export const solicRecStatusSchema = z.enum(['CRIADA', 'ENVIADA', 'RECEBIDA', 'REJEITADA', 'ACEITA', 'EXPIRADA', 'CANCELADA']);
export const cobrStatusSchema = z.enum(['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA']);
export const tentativaStatusSchema = z.enum(['SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA']);
export const solicitanteSchema = z.enum(['PSP_PAGADOR', 'USUARIO_PAGADOR', 'PSP_RECEBEDOR', 'USUARIO_RECEBEDOR']);
export const tipoContaSchema = z.enum(['CORRENTE', 'POUPANCA', 'PAGAMENTO']);
/** The cobr and attempt rejection codes (the SPI message catalogue's), 2.9.0's closed list. */
export const cobrRejeicaoCodigoSchema = z.enum([
  'AB10',
  'AC05',
  'AC06',
  'AM02',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'DTNT',
  'FBRD',
  'IRNT',
  'MIDI',
  'MSUC',
  'NIEC',
  'NIPA',
  'NITX',
  'QUNT',
  'RC09',
  'UDEI',
]);
export type CobrRejeicaoCodigo = z.infer<typeof cobrRejeicaoCodigoSchema>;

const devedorRec = z.union([z.strictObject({ cpf: cpfSchema, nome: text(140) }), z.strictObject({ cnpj: cnpjSchema, nome: text(140) })]);

// ---------------------------------------------------------------- requests (strict)

/** POST /rec (RecSolicitada). Patch: RecBase requires `idRec` (the PSP assigns it) and `retentativa` (no such field). */
export const recPostRequestSchema = z
  .strictObject({
    vinculo: z.strictObject({ objeto: z.optional(text(35)), devedor: devedorRec, contrato: text(35).check(z.minLength(1)) }),
    calendario: z.strictObject({ dataInicial: isoDateSchema, dataFinal: z.optional(isoDateSchema), periodicidade: periodicidadeSchema }),
    valor: z.optional(z.strictObject({ valorRec: z.optional(amountSchema), valorMinimoRecebedor: z.optional(amountSchema) })),
    politicaRetentativa: politicaRetentativaSchema,
    recebedor: z.optional(z.strictObject({ convenio: z.optional(text(60)) })),
    loc: z.optional(z.number().check(z.int(), z.positive())),
    ativacao: z.optional(z.strictObject({ dadosJornada: z.optional(z.strictObject({ txid: txidSchema })) })),
  })
  .check(
    z.refine((r) => !(r.valor?.valorRec && r.valor.valorMinimoRecebedor), {
      message: 'valor.valorMinimoRecebedor cannot be given with valor.valorRec',
      path: ['valor'],
    }),
    z.refine((r) => !r.calendario.dataFinal || r.calendario.dataFinal >= r.calendario.dataInicial, {
      message: 'calendario.dataFinal is before calendario.dataInicial',
      path: ['calendario', 'dataFinal'],
    }),
  );
export type RecPostRequest = z.infer<typeof recPostRequestSchema>;

/** PATCH /rec/{idRec} (RecRevisada): we only ever cancel. */
export const recPatchRequestSchema = z.strictObject({
  status: z.optional(z.literal('CANCELADA')),
  vinculo: z.optional(z.strictObject({ devedor: z.optional(z.strictObject({ nome: text(140) })) })),
  loc: z.optional(z.number().check(z.int(), z.positive())),
  calendario: z.optional(z.strictObject({ dataInicial: z.optional(isoDateSchema) })),
  ativacao: z.optional(z.strictObject({ dadosJornada: z.optional(z.strictObject({ txid: txidSchema })) })),
});

/**
 * POST /solicrec (SolicRecSolicitada). Patch: SolicRecBase requires `pagador`, which it does not define (the payer is
 * `destinatario`, required since 2.8.0); `destinatario`'s `oneOf` CPF/CNPJ: exactly one of `cpf` and `cnpj`.
 */
export const solicRecPostRequestSchema = z.strictObject({
  idRec: recIdSchema,
  calendario: z.strictObject({ dataExpiracaoSolicitacao: dateTime }),
  destinatario: z
    .strictObject({
      conta: text(20).check(z.minLength(1)),
      ispbParticipante: ispbSchema,
      agencia: z.optional(text(4)),
      cpf: z.optional(cpfSchema),
      cnpj: z.optional(cnpjSchema),
    })
    .check(z.refine((d) => (d.cpf === undefined) !== (d.cnpj === undefined), { message: 'exactly one of cpf and cnpj' })),
});
export type SolicRecPostRequest = z.infer<typeof solicRecPostRequestSchema>;

const recebedorConta = z.strictObject({ conta: text(20).check(z.minLength(1)), tipoConta: tipoContaSchema, agencia: z.optional(text(4)) });

/** PUT /cobr/{txid} (CobRSolicitada): `devedor` (DadosDevedorRecorrencia) is only an address and e-mail, never required. */
export const cobrPutRequestSchema = z.strictObject({
  idRec: recIdSchema,
  infoAdicional: z.optional(text(140)),
  calendario: z.strictObject({ dataDeVencimento: isoDateSchema }),
  valor: z.strictObject({ original: amountSchema }),
  ajusteDiaUtil: z.boolean(),
  recebedor: recebedorConta,
  devedor: z.optional(
    z.strictObject({
      email: z.optional(z.string()),
      logradouro: z.optional(text(200)),
      cidade: z.optional(text(200)),
      uf: z.optional(text(2)),
      cep: z.optional(text(8)),
    }),
  ),
});
export type CobrPutRequest = z.infer<typeof cobrPutRequestSchema>;

// ---------------------------------------------------------------- answers (loose)

/** POST /locrec (PayloadLocationRecGerada). Patch: `tipo` is required but no example carries it. */
export const locRecSchema = z.looseObject({
  id: z.number().check(z.int()),
  location: text(77),
  tipo: z.optional(z.literal('rec')),
  criacao: dateTime,
  idRec: z.optional(recIdSchema),
});
export type LocRec = z.infer<typeof locRecSchema>;

/** A status history item. Patch: the rec examples name the status `nome`; the schema (and our fake) `status`. */
const atualizacao = <S extends z.ZodMiniType>(status: S) =>
  z.array(z.looseObject({ status: z.optional(status), nome: z.optional(status), data: dateTime }));

/** Patch: `encerramento`'s `oneOf` (rejeicao | cancelamento) matches any value: at most one of the two. */
const recEncerramento = z
  .looseObject({
    rejeicao: z.optional(z.looseObject({ codigo: z.string(), descricao: text(400) })),
    cancelamento: z.optional(z.looseObject({ solicitante: solicitanteSchema, codigo: z.string(), descricao: text(400) })),
  })
  .check(z.refine((e) => !(e.rejeicao && e.cancelamento), { message: 'rejeicao and cancelamento together' }));

export const solicRecSchema = z.looseObject({
  idSolicRec: solicRecIdSchema,
  idRec: recIdSchema,
  calendario: z.looseObject({ dataExpiracaoSolicitacao: dateTime }),
  status: solicRecStatusSchema,
  destinatario: z.looseObject({ conta: z.string(), ispbParticipante: ispbSchema, agencia: z.optional(z.string()) }),
  atualizacao: atualizacao(solicRecStatusSchema),
  recPayload: z.optional(z.looseObject({ idRec: recIdSchema })),
});
export type SolicRec = z.infer<typeof solicRecSchema>;

/**
 * A recurrence read back (RecGerada, RecCompleta, RecCompletaPesquisada). Patches: `ativacao.tipoJornada` is required
 * but one example puts it inside `dadosJornada`; `politicaRetentativa` is absent from RecGerada's schema though its
 * examples carry it.
 */
export const recSchema = z.looseObject({
  idRec: recIdSchema,
  vinculo: z.looseObject({
    contrato: z.string(),
    objeto: z.optional(z.string()),
    devedor: z.looseObject({ cpf: z.optional(z.string()), cnpj: z.optional(z.string()), nome: z.optional(z.string()) }),
  }),
  calendario: z.looseObject({ dataInicial: isoDateSchema, dataFinal: z.optional(isoDateSchema), periodicidade: periodicidadeSchema }),
  valor: z.optional(z.looseObject({ valorRec: z.optional(amountSchema), valorMinimoRecebedor: z.optional(amountSchema) })),
  politicaRetentativa: z.optional(politicaRetentativaSchema),
  recebedor: z.looseObject({ cnpj: z.optional(z.string()), nome: z.optional(z.string()), convenio: z.optional(z.string()) }),
  status: recStatusSchema,
  loc: z.optional(z.looseObject({ id: z.number(), location: z.string(), criacao: z.optional(dateTime), idRec: z.optional(recIdSchema) })),
  pagador: z.optional(
    z.looseObject({
      ispbParticipante: ispbSchema,
      cpf: z.optional(z.string()),
      cnpj: z.optional(z.string()),
      codMun: z.optional(z.string()),
    }),
  ),
  atualizacao: atualizacao(recStatusSchema),
  encerramento: z.optional(recEncerramento),
  solicitacao: z.optional(z.array(solicRecSchema)),
  ativacao: z.optional(z.looseObject({ tipoJornada: z.optional(z.string()), dadosJornada: z.optional(z.looseObject({})) })),
  dadosQR: z.optional(z.looseObject({ jornada: z.optional(z.string()), pixCopiaECola: z.optional(text(512)) })),
});
export type Rec = z.infer<typeof recSchema>;

const paginacao = z.looseObject({
  paginaAtual: z.number().check(z.int(), z.gte(0)),
  itensPorPagina: z.number().check(z.int(), z.gte(1)),
  quantidadeDePaginas: z.number().check(z.int(), z.gte(1)),
  quantidadeTotalDeItens: z.number().check(z.int(), z.gte(0)),
});

/** GET /rec (RecsConsultadas). */
export const recsConsultadasSchema = z.looseObject({
  parametros: z.looseObject({ inicio: dateTime, fim: dateTime, paginacao }),
  recs: z.array(recSchema),
});

const rejeicao = z.looseObject({ codigo: z.string(), descricao: text(400) });

/**
 * One settlement attempt. Patches: `atualizacao` is required but no example carries it; one example's `dataLiquidacao`
 * is `2024-20-08` (a month 20): ours is a real date.
 */
export const tentativaSchema = z.looseObject({
  dataLiquidacao: isoDateSchema,
  tipo: z.enum(['AGND', 'NTAG', 'RIFL']),
  status: tentativaStatusSchema,
  endToEndId: endToEndIdSchema,
  atualizacao: z.optional(atualizacao(tentativaStatusSchema)),
  rejeicao: z.optional(rejeicao),
});
export type Tentativa = z.infer<typeof tentativaSchema>;

const cobrEncerramento = z
  .looseObject({
    cancelamento: z.optional(z.looseObject({ solicitante: solicitanteSchema, codigo: z.string(), descricao: text(400) })),
    rejeicao: z.optional(rejeicao),
  })
  .check(z.refine((e) => !(e.rejeicao && e.cancelamento), { message: 'rejeicao and cancelamento together' }));

/** A Pix that paid a charge (PixAutomatico). */
export const pixAutomaticoSchema = z.looseObject({
  endToEndId: endToEndIdSchema,
  txid: txidSchema,
  valor: amountSchema,
  horario: dateTime,
  infoPagador: z.optional(text(140)),
});

/**
 * A charge read back (CobRGerada, CobRCompleta). Patches: one example's `tipoConta` is `POUPANÇA` (the enum's is
 * POUPANCA); `calendario.criacao` is a date (YYYY-MM-DD), not a date-time.
 */
export const cobrSchema = z.looseObject({
  idRec: recIdSchema,
  txid: txidSchema,
  infoAdicional: z.optional(text(140)),
  calendario: z.looseObject({ criacao: isoDateSchema, dataDeVencimento: isoDateSchema }),
  valor: z.looseObject({ original: amountSchema }),
  ajusteDiaUtil: z.optional(z.boolean()),
  politicaRetentativa: z.optional(politicaRetentativaSchema),
  status: cobrStatusSchema,
  recebedor: z.looseObject({ conta: z.string(), tipoConta: tipoContaSchema, agencia: z.optional(z.string()) }),
  devedor: z.optional(z.looseObject({})),
  pix: z.optional(z.array(pixAutomaticoSchema)),
  atualizacao: z.optional(atualizacao(cobrStatusSchema)),
  encerramento: z.optional(cobrEncerramento),
  tentativas: z.optional(z.array(tentativaSchema)),
});
export type Cobr = z.infer<typeof cobrSchema>;

/** GET /webhookrec, GET /webhookcobr. */
export const webhookRecSchema = z.looseObject({ webhookUrl: z.string(), criacao: z.optional(dateTime) });

// ---------------------------------------------------------------- callbacks (loose)

/** What the PSP POSTs to `<webhookrec url>/rec` (RecNotification; its `required` list has a stray quote in 2.9.0). */
export const recNotificationSchema = z.looseObject({
  idRec: recIdSchema,
  status: recStatusSchema,
  atualizacao: atualizacao(recStatusSchema),
  encerramento: z.optional(recEncerramento),
  ativacao: z.optional(z.looseObject({ tipoJornada: z.optional(z.string()) })),
});
export const recCallbackSchema = z.looseObject({ recs: z.array(z.unknown()).check(z.minLength(1)) });

/** What the PSP POSTs to `<webhookcobr url>/cobr` (CobRNotification). */
export const cobrNotificationSchema = z.looseObject({
  idRec: recIdSchema,
  txid: txidSchema,
  status: cobrStatusSchema,
  atualizacao: atualizacao(cobrStatusSchema),
  tentativas: z.optional(z.array(tentativaSchema)),
  pix: z.optional(z.array(pixAutomaticoSchema)),
});
export const cobrCallbackSchema = z.looseObject({ cobsr: z.array(z.unknown()).check(z.minLength(1)) });
