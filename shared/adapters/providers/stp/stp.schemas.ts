/**
 * STP's wire, the subset we use (registraOrden, the order query by claveRastreo, the order-state and deposit
 * callbacks), written from STP's field rules: claveRastreo alphanumeric up to 29, conceptoPago and names up to
 * 39, referenciaNumerica up to 7 digits, accounts of 18 digits (CLABE, tipoCuenta 40), institutions of 4-5
 * digits, every text field free of the cadena's `|` delimiter. Answers arrive in a `resultado` envelope whose
 * negative (or 0) `id` is a refusal with `descripcionError`.
 */
import * as z from '../../../domain/zod';

const digits = (min: number, max = min) => z.string().check(z.regex(new RegExp(`^\\d{${min},${max}}$`)));
/** Text STP takes in a signed field: printable ASCII without the cadena's delimiter, trimmed, 1 to `max` characters. */
const stpText = (max: number) => z.string().check(z.regex(new RegExp(`^[ -{}~]{1,${max}}$`)), z.regex(/^\S(.*\S)?$/));

export const claveRastreoSchema = z.string().check(z.regex(/^[A-Za-z0-9]{1,29}$/));
export const clabeSchema = digits(18);
export const institucionSchema = digits(4, 5);
export const firmaSchema = z.string().check(z.regex(/^[A-Za-z0-9+/]{40,2000}={0,2}$/));

/** PUT /ordenPago/registra: the order with its firma (amounts a JSON number; the cadena writes it with two decimals). */
export const ordenRequestSchema = z.strictObject({
  claveRastreo: claveRastreoSchema,
  /** Ours, sent so STP's state change names the order by it too (absent in orders registered before we sent it). */
  folioOrigen: z.optional(z.string().check(z.regex(/^[A-Za-z0-9]{1,50}$/))),
  empresa: stpText(15),
  institucionOperante: institucionSchema,
  cuentaOrdenante: clabeSchema,
  tipoCuentaOrdenante: z.literal(40),
  institucionContraparte: institucionSchema,
  cuentaBeneficiario: clabeSchema,
  tipoCuentaBeneficiario: z.literal(40),
  nombreBeneficiario: stpText(39),
  rfcCurpBeneficiario: z.string().check(z.regex(/^(ND|[A-Z&Ñ]{3,4}\d{6}[A-Z0-9]{3}|[A-Z]{4}\d{6}[HM][A-Z]{5}[A-Z0-9]\d)$/)),
  monto: z.number().check(z.gt(0), z.lte(999_999_999_999.99)),
  conceptoPago: stpText(39),
  referenciaNumerica: z.number().check(z.int(), z.gte(1), z.lte(9_999_999)),
  tipoPago: z.literal(1),
  topologia: z.literal('T'),
  medioEntrega: z.literal(3),
  prioridad: z.literal(0),
  firma: firmaSchema,
});
export type OrdenRequest = z.infer<typeof ordenRequestSchema>;
/** The order's fields as they are kept and re-sent (everything but the firma, computed at each send). */
export type OrdenUnsigned = Omit<OrdenRequest, 'firma'>;

/** POST /ordenPago/consOrdEnvRastreo: an order we sent, by its claveRastreo. */
export const consultaRequestSchema = z.strictObject({
  empresa: stpText(15),
  claveRastreo: claveRastreoSchema,
  institucionOperante: z.number().check(z.int(), z.gte(1000), z.lte(99999)),
  fechaOperacion: z.optional(digits(8)),
  firma: firmaSchema,
});
export type ConsultaRequest = z.infer<typeof consultaRequestSchema>;

const refusal = z.object({ id: z.number().check(z.int()), descripcionError: z.optional(z.string()) });

export const registraAnswerSchema = z.object({ resultado: refusal });

/** An order as the query answers it (the fields we read; STP sends many more). */
export const ordenPagoSchema = z.object({
  claveRastreo: z.string(),
  estado: z.string().check(z.regex(/^[A-Z]{1,4}$/)),
  monto: z.number(),
  cuentaBeneficiario: z.optional(z.string()),
  causaDevolucion: z.optional(z.nullable(z.union([z.number(), z.string()]))),
  tsLiquidacion: z.optional(z.nullable(z.number())),
  idEF: z.optional(z.nullable(z.number())),
});
export type OrdenPago = z.infer<typeof ordenPagoSchema>;

export const consultaAnswerSchema = z.object({
  resultado: z.object({
    id: z.number().check(z.int()),
    descripcionError: z.optional(z.string()),
    ordenPago: z.optional(ordenPagoSchema),
  }),
});

/**
 * STP's order-state change (POST <our url>/estado). `id` is STP's id of the order (answered at registration);
 * `folioOrigen` is the order's own field, so it is empty (or absent) for an order registered without one;
 * `claveRastreo` is read when STP includes it.
 */
export const estadoCallbackSchema = z.object({
  id: z.union([z.number().check(z.int(), z.gte(1)), z.string().check(z.regex(/^[1-9]\d{0,19}$/))]),
  empresa: z.string().check(z.minLength(1), z.maxLength(64)),
  folioOrigen: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
  claveRastreo: z.optional(z.nullable(z.string().check(z.maxLength(30)))),
  estado: z.enum(['LIQUIDACION', 'CANCELACION', 'DEVOLUCION']),
  causaDevolucion: z.optional(z.nullable(z.union([z.number(), z.string().check(z.maxLength(200))]))),
  tsLiquidacion: z.optional(z.nullable(z.union([z.number(), z.string().check(z.maxLength(40))]))),
});
export type EstadoCallback = z.infer<typeof estadoCallbackSchema>;

/**
 * POST <efws>/consultaOrden: one order by claveRastreo, `tipoOrden` R (received: a deposit to us) or E (sent),
 * on its operation date (YYYYMMDD). Its firma signs `||empresa|claveRastreo|tipoOrden|fechaOperacion||`.
 */
export const consultaOrdenRequestSchema = z.strictObject({
  empresa: stpText(15),
  claveRastreo: z.string().check(z.regex(/^[A-Za-z0-9]{1,30}$/)),
  tipoOrden: z.enum(['R', 'E']),
  fechaOperacion: z.optional(digits(8)),
  firma: firmaSchema,
});
export type ConsultaOrdenRequest = z.infer<typeof consultaOrdenRequestSchema>;

/**
 * Its answer: `estado` 0 with the order in `respuesta`, or another `estado` with `mensaje` (6: nothing found,
 * which STP answers with HTTP 400). The fields we read of the order; STP sends many more.
 */
export const consultaOrdenAnswerSchema = z.object({
  estado: z.number().check(z.int()),
  mensaje: z.optional(z.string()),
  respuesta: z.optional(
    z.nullable(
      z.object({
        idEF: z.optional(z.nullable(z.number())),
        claveRastreo: z.string(),
        cuentaBeneficiario: z.string(),
        estado: z.string().check(z.regex(/^[A-Z]{1,4}$/)),
        monto: z.number(),
        fechaOperacion: z.optional(z.nullable(z.number())),
        institucionContraparte: z.optional(z.nullable(z.number())),
        tsLiquidacion: z.optional(z.nullable(z.number())),
      }),
    ),
  ),
});
export type ConsultaOrdenAnswer = z.infer<typeof consultaOrdenAnswerSchema>;

/** An incoming SPEI deposit (POST <our url>/abono), the fields we read. */
export const abonoCallbackSchema = z.object({
  id: z.union([z.number().check(z.int()), digits(1, 20)]),
  fechaOperacion: z.union([z.number().check(z.int()), digits(8)]),
  institucionOrdenante: z.union([z.number().check(z.int()), institucionSchema]),
  institucionBeneficiaria: z.optional(z.union([z.number().check(z.int()), institucionSchema])),
  claveRastreo: z.string().check(z.minLength(1), z.maxLength(30)),
  monto: z.number().check(z.gt(0)),
  cuentaBeneficiario: z.string().check(z.regex(/^\d{10,18}$/)),
  nombreOrdenante: z.optional(z.nullable(z.string().check(z.maxLength(120)))),
  cuentaOrdenante: z.optional(z.nullable(z.string().check(z.maxLength(20)))),
  empresa: z.optional(z.string().check(z.maxLength(64))),
  tsLiquidacion: z.optional(z.nullable(z.union([z.number(), z.string().check(z.maxLength(40))]))),
});
export type AbonoCallback = z.infer<typeof abonoCallbackSchema>;
