/**
 * STP's cadena original: the text whose RSA-SHA256 signature (PKCS#1 v1.5, base64) is the `firma` of every
 * signed call. For an order it is the 34 fields below, in this order, each written as its value or as nothing
 * when absent (empty fields are kept), joined by `|`, between `||` and `||`. The order is the one STP documents
 * for registraOrden and the one the community client (cuenca-mx/stpmex-python, stpmex/auth.py) signs with;
 * test/unit/stp-cadena.test.ts checks it field by field. Amounts are written with two decimals.
 */

export const ORDEN_FIELDS = [
  'institucionContraparte',
  'empresa',
  'fechaOperacion',
  'folioOrigen',
  'claveRastreo',
  'institucionOperante',
  'monto',
  'tipoPago',
  'tipoCuentaOrdenante',
  'nombreOrdenante',
  'cuentaOrdenante',
  'rfcCurpOrdenante',
  'tipoCuentaBeneficiario',
  'nombreBeneficiario',
  'cuentaBeneficiario',
  'rfcCurpBeneficiario',
  'emailBeneficiario',
  'tipoCuentaBeneficiario2',
  'nombreBeneficiario2',
  'cuentaBeneficiario2',
  'rfcCurpBeneficiario2',
  'conceptoPago',
  'conceptoPago2',
  'claveCatUsuario1',
  'claveCatUsuario2',
  'clavePago',
  'referenciaCobranza',
  'referenciaNumerica',
  'tipoOperacion',
  'topologia',
  'usuario',
  'medioEntrega',
  'prioridad',
  'iva',
] as const;

export type OrdenField = (typeof ORDEN_FIELDS)[number];

/** An order's signed fields as they are sent: text or integers, `monto` already with two decimals. */
export type OrdenFields = Partial<Record<OrdenField, string | number>>;

/** Minor units (centavos) as STP's amount: "1234.50". Integer arithmetic, never a float. */
export function montoOf(amountMinor: number): string {
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) throw new RangeError('monto must be a positive whole number of centavos');
  return `${Math.trunc(amountMinor / 100)}.${String(amountMinor % 100).padStart(2, '0')}`;
}

const write = (v: string | number | undefined | null) => (v === undefined || v === null ? '' : String(v));

/** The cadena original of an order: `||` + the 34 fields joined by `|` + `||`. */
export function ordenCadena(fields: OrdenFields): string {
  return `||${ORDEN_FIELDS.map((f) => write(fields[f])).join('|')}||`;
}

/**
 * The cadena of a query (order by claveRastreo, balance by date): the same 34 positions with only empresa,
 * fechaOperacion, claveRastreo and institucionOperante filled.
 */
export function consultaCadena(q: {
  empresa: string;
  fechaOperacion?: string;
  claveRastreo?: string;
  institucionOperante?: string | number;
}): string {
  return ordenCadena({
    empresa: q.empresa,
    fechaOperacion: q.fechaOperacion,
    claveRastreo: q.claveRastreo,
    institucionOperante: q.institucionOperante,
  });
}

/**
 * The cadena of the order query by claveRastreo (consultaOrden, STP's efws API): a short one of its own,
 * `||empresa|claveRastreo|tipoOrden|fechaOperacion||` (fechaOperacion empty when not given), as the community
 * client signs it (stpmex resources/base.py, _firma_consulta_efws).
 */
export function consultaOrdenCadena(q: { empresa: string; claveRastreo: string; tipoOrden: 'R' | 'E'; fechaOperacion?: string }): string {
  return `||${q.empresa}|${q.claveRastreo}|${q.tipoOrden}|${q.fechaOperacion ?? ''}||`;
}
