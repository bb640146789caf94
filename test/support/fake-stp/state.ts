/**
 * What the fake STP holds and how it judges a request, apart from HTTP: the orders registered (one per
 * claveRastreo, ever), their states, and the faults a test scripts. Every rule is one of STP's: the firma
 * must be the signature of the order's cadena by the company's registered key, the company and its account
 * must be the configured ones, the CLABE must belong to the counterpart institution, a claveRastreo names one
 * order. Refusals come back as STP's `resultado` with its ids (0, -1, -7, -22, -100).
 */
import type { KeyObject } from 'node:crypto';
import * as z from '../../../shared/domain/zod';
import { consultaCadena, consultaOrdenCadena, ordenCadena, type OrdenFields } from '../../../shared/adapters/providers/stp/stp.cadena';
import {
  consultaOrdenRequestSchema,
  consultaRequestSchema,
  ordenRequestSchema,
  type OrdenRequest,
} from '../../../shared/adapters/providers/stp/stp.schemas';
import { firmaMatches } from '../../../shared/adapters/providers/stp/stp.signer';

export type StpOp = 'registra' | 'consulta' | 'consultaOrden';

/** A deposit STP received for the company (an abono it posts to us), as its order query shows it. */
export interface ReceivedOrder {
  readonly id: number;
  readonly claveRastreo: string;
  readonly cuentaBeneficiario: string;
  readonly monto: number;
  readonly fechaOperacion: number;
  readonly institucionContraparte: number;
  readonly tsLiquidacion: number;
}
/** A status, no answer at all, or (registra) the order taken and then no answer: a lost answer. */
export type StpFault = { status: number } | { hang: true } | { hangAfter: true };
export type OrderEstado = 'L' | 'LQ' | 'CN' | 'D';

export interface FakeOrder {
  readonly id: number;
  readonly request: OrdenRequest;
  estado: OrderEstado;
  tsLiquidacion: number | null;
  causaDevolucion: number | null;
}

type Resultado = { resultado: Record<string, unknown> };
const refusal = (id: number, descripcionError: string): Resultado => ({ resultado: { id, descripcionError } });

/** A request as text with its fields in one order (a re-sent order may list them in another). */
const canonical = (o: object) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

/** The CLABE check digit, written here independently of the code under test. */
function clabeValid(clabe: string): boolean {
  if (!/^\d{18}$/.test(clabe)) return false;
  const w = [3, 7, 1];
  const sum = [...clabe.slice(0, 17)].reduce((s, d, i) => s + ((Number(d) * w[i % 3]!) % 10), 0);
  return String((10 - (sum % 10)) % 10) === clabe[17];
}

export class StpState {
  readonly orders = new Map<string, FakeOrder>();
  /** Every registration request that reached the order book, duplicates included (claveRastreo -> count). */
  readonly registrations = new Map<string, number>();
  readonly faults = new Map<StpOp, StpFault[]>();
  readonly violations: string[] = [];
  /** Accounts STP refuses as beneficiaries, with the refusal id (e.g. -7, the account does not exist). */
  readonly refusedAccounts = new Map<string, number>();
  /** Deposits received (by claveRastreo): what consultaOrden with tipoOrden R finds. */
  readonly received = new Map<string, ReceivedOrder>();
  private nextId = 4_100_000;

  constructor(
    readonly empresa: string,
    readonly cuentaOrdenante: string,
    private readonly publicKey: KeyObject,
  ) {}

  nextFault(op: StpOp): StpFault | undefined {
    const list = this.faults.get(op);
    return list?.shift();
  }

  private violation(what: string, value: unknown, schema: z.ZodMiniType): string | null {
    const r = z.safeParse(schema, value);
    if (r.success) return null;
    const detail = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    this.violations.push(`${what}: ${detail}`);
    return detail;
  }

  registra(body: unknown): Resultado {
    const bad = this.violation('registra body', body, ordenRequestSchema);
    if (bad) return refusal(0, `El campo ${bad.split(':')[0]} es obligatorio`);
    const o = body as OrdenRequest;
    const { firma, ...fields } = o;
    const cadena = ordenCadena({ ...(fields as OrdenFields), monto: o.monto.toFixed(2) });
    if (!firmaMatches(this.publicKey, cadena, firma)) {
      this.violations.push(`registra ${o.claveRastreo}: firma does not match the cadena`);
      return refusal(0, 'Error validando la firma');
    }
    if (o.empresa !== this.empresa) {
      this.violations.push(`registra: empresa ${o.empresa}`);
      return refusal(0, 'La empresa no existe');
    }
    if (o.cuentaOrdenante !== this.cuentaOrdenante || o.institucionOperante !== '90646') {
      this.violations.push('registra: not the company’s account or STP as operating institution');
      return refusal(-7, `La cuenta ${o.cuentaOrdenante} no existe`);
    }
    this.registrations.set(o.claveRastreo, (this.registrations.get(o.claveRastreo) ?? 0) + 1);
    const held = this.orders.get(o.claveRastreo);
    if (held) {
      // STP refuses it either way; a different request for one claveRastreo is our defect.
      if (canonical(held.request) !== canonical(o))
        this.violations.push(`registra ${o.claveRastreo}: another request for one claveRastreo`);
      return refusal(-1, `La clave de rastreo ${o.claveRastreo} ya fue utilizada`);
    }
    if (!clabeValid(o.cuentaBeneficiario) || o.institucionContraparte.slice(-3) !== o.cuentaBeneficiario.slice(0, 3))
      return refusal(-22, `La cuenta clabe ${o.cuentaBeneficiario} no coincide para la institucion operante ${o.institucionContraparte}`);
    if (o.cuentaBeneficiario === o.cuentaOrdenante) return refusal(-24, `Cuenta {${o.cuentaBeneficiario}} - {MISMA_CUENTA}`);
    const refused = this.refusedAccounts.get(o.cuentaBeneficiario);
    if (refused !== undefined) return refusal(refused, `La cuenta ${o.cuentaBeneficiario} no existe`);
    const order: FakeOrder = { id: this.nextId++, request: o, estado: 'L', tsLiquidacion: null, causaDevolucion: null };
    this.orders.set(o.claveRastreo, order);
    return { resultado: { id: order.id } };
  }

  consulta(body: unknown): Resultado {
    const bad = this.violation('consOrdEnvRastreo body', body, consultaRequestSchema);
    if (bad) return refusal(0, `El campo ${bad.split(':')[0]} es obligatorio`);
    const q = body as z.infer<typeof consultaRequestSchema>;
    if (!firmaMatches(this.publicKey, consultaCadena(q), q.firma)) {
      this.violations.push(`consulta ${q.claveRastreo}: firma does not match the cadena`);
      return refusal(0, 'Error validando la firma');
    }
    if (q.empresa !== this.empresa) return refusal(0, 'La empresa no existe');
    const o = this.orders.get(q.claveRastreo);
    if (!o) return refusal(-100, `No se encontró la orden con rastreo ${q.claveRastreo}`);
    const r = o.request;
    return {
      resultado: {
        id: 1,
        ordenPago: {
          claveRastreo: r.claveRastreo,
          conceptoPago: r.conceptoPago,
          cuentaBeneficiario: r.cuentaBeneficiario,
          cuentaOrdenante: r.cuentaOrdenante,
          empresa: r.empresa,
          estado: o.estado,
          folioOrigen: r.folioOrigen ?? '',
          idEF: o.id,
          institucionContraparte: Number(r.institucionContraparte),
          institucionOperante: 90646,
          monto: r.monto,
          nombreBeneficiario: r.nombreBeneficiario,
          referenciaNumerica: r.referenciaNumerica,
          rfcCurpBeneficiario: r.rfcCurpBeneficiario,
          tipoPago: 1,
          causaDevolucion: o.causaDevolucion,
          tsCaptura: Date.now(),
          tsLiquidacion: o.tsLiquidacion,
        },
      },
    };
  }

  /**
   * POST /efws/API/consultaOrden: one order by claveRastreo (R: received; E: sent), its firma over the short
   * efws cadena. Found: 200 `{estado: 0, mensaje, respuesta}`; not found: 400 `{estado: 6, mensaje}`, as STP.
   */
  consultaOrden(body: unknown): { status: number; body: Record<string, unknown> } {
    const bad = this.violation('consultaOrden body', body, consultaOrdenRequestSchema);
    if (bad) return { status: 400, body: { estado: 3, mensaje: `Parámetro ${bad.split(':')[0]} inválido` } };
    const q = body as z.infer<typeof consultaOrdenRequestSchema>;
    if (!firmaMatches(this.publicKey, consultaOrdenCadena(q), q.firma)) {
      this.violations.push(`consultaOrden ${q.claveRastreo}: firma does not match the cadena`);
      return { status: 400, body: { estado: 1, mensaje: 'Firma inválida' } };
    }
    if (q.empresa !== this.empresa) return { status: 400, body: { estado: 2, mensaje: 'Empresa inválida' } };
    const r = q.tipoOrden === 'R' ? this.received.get(q.claveRastreo) : undefined;
    if (!r || (q.fechaOperacion && String(r.fechaOperacion) !== q.fechaOperacion))
      return { status: 400, body: { estado: 6, mensaje: 'No se encontraron datos relacionados' } };
    return {
      status: 200,
      body: {
        estado: 0,
        mensaje: 'Datos consultados correctamente',
        respuesta: {
          idEF: r.id,
          claveRastreo: r.claveRastreo,
          cuentaBeneficiario: r.cuentaBeneficiario,
          empresa: this.empresa,
          estado: 'TLQ',
          fechaOperacion: r.fechaOperacion,
          institucionContraparte: r.institucionContraparte,
          institucionOperante: 90646,
          monto: r.monto,
          tipoPago: 1,
          tsLiquidacion: r.tsLiquidacion,
          causaDevolucion: null,
        },
      },
    };
  }

  /** A deposit STP takes for the company before it posts the abono (what its query then shows). */
  receive(a: Record<string, unknown>): void {
    const clave = String(a.claveRastreo ?? '');
    if (!clave || this.received.has(clave)) return;
    this.received.set(clave, {
      id: Number(a.id),
      claveRastreo: clave,
      cuentaBeneficiario: String(a.cuentaBeneficiario ?? ''),
      monto: Number(a.monto),
      fechaOperacion: Number(a.fechaOperacion),
      institucionContraparte: Number(a.institucionOrdenante ?? 0),
      tsLiquidacion: Number(a.tsLiquidacion ?? Date.now()),
    });
  }

  /** Moves an order to a final state as SPEI would, and the state-change body STP posts for it. */
  move(claveRastreo: string, estado: 'LQ' | 'CN' | 'D') {
    const o = this.orders.get(claveRastreo);
    if (!o) throw new Error(`fake STP: no order ${claveRastreo}`);
    o.estado = estado;
    if (estado === 'LQ') o.tsLiquidacion = Date.now();
    if (estado === 'D') o.causaDevolucion = 1;
    return {
      id: o.id,
      empresa: this.empresa,
      // The order's own folioOrigen, as STP sends it: empty when the order was registered without one.
      folioOrigen: o.request.folioOrigen ?? '',
      estado: estado === 'LQ' ? 'LIQUIDACION' : estado === 'CN' ? 'CANCELACION' : 'DEVOLUCION',
      causaDevolucion: estado === 'D' ? 1 : null,
      tsLiquidacion: o.tsLiquidacion,
    };
  }
}
