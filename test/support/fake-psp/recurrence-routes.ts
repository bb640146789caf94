/**
 * API Pix 2.9.0's Pix Automático routes over a RecurrenceState: `POST /locrec`, `POST|GET /rec`, `GET|PATCH
 * /rec/{idRec}`, `POST /solicrec`, `PUT|GET /cobr/{txid}`, `POST /cobr/{txid}/retentativa/{data}` and `PUT|GET
 * /webhookrec|/webhookcobr`. Every path parameter, query and body is checked against our schemas of the spec, and so
 * is every answer the fake gives (a mismatch of either is recorded in `violations`, which the tests assert empty).
 */
import * as z from '../../../shared/domain/zod';
import type { ApiPixRecurrenceOp } from '../../../shared/adapters/providers/api-pix/api-pix.client';
import {
  cobrPutRequestSchema,
  cobrSchema,
  isoDateSchema,
  locRecSchema,
  recIdSchema,
  recPatchRequestSchema,
  recPostRequestSchema,
  recSchema,
  recsConsultadasSchema,
  solicRecPostRequestSchema,
  solicRecSchema,
  webhookRecSchema,
} from '../../../shared/adapters/providers/api-pix/api-pix.recurrence.schemas';
import { txidSchema, webhookPutRequestSchema } from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import { requestChecks } from './api-pix-routes';
import type { RecNotice, RecurrenceState } from './recurrence-state';
import { Problem } from './state';

export type RecurrenceOp = ApiPixRecurrenceOp;

export interface RecurrenceRoute {
  readonly op: RecurrenceOp;
  answer(body: string): [number, unknown];
}

const dateTime = z
  .string()
  .check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'must be an RFC 3339 date-time'));
const listQuerySchema = z.strictObject({
  inicio: dateTime,
  fim: dateTime,
  'paginacao.paginaAtual': z.optional(z.string().check(z.regex(/^\d+$/, 'must be an integer from 0'))),
  'paginacao.itensPorPagina': z.optional(z.string().check(z.regex(/^([1-9]\d{0,2}|1000)$/, 'must be 1 to 1000'))),
  cpf: z.optional(z.string()),
  cnpj: z.optional(z.string()),
  locationPresente: z.optional(z.enum(['true', 'false'])),
  status: z.optional(z.string()),
  convenio: z.optional(z.string().check(z.maxLength(60))),
});

/**
 * The route a call is, or null. `notify` posts a callback the PSP sends on its own (a charge scheduled at the payer's
 * PSP right after its creation, a retry scheduled, a rec cancelled by the receiver), after the call is answered.
 */
export function recurrenceRoutes(
  state: RecurrenceState,
  violations: string[],
  notify: (n: RecNotice) => void,
): (method: string, path: string, query: URLSearchParams) => RecurrenceRoute | null {
  const { check, json } = requestChecks(violations);
  /** The fake's own answer checked against the spec like a request: a mismatch is a violation (and still sent). */
  const answered = <S extends z.ZodMiniType>(what: string, schema: S, value: unknown): unknown => {
    const r = z.safeParse(schema, value);
    if (!r.success) violations.push(`fake answer ${what}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return value;
  };
  const noBody = (what: string, text: string) => {
    if (text) check(`${what} body`, z.undefined(), json(text));
  };
  const later = (f: () => RecNotice[]) => setImmediate(() => f().forEach(notify));
  const hook = (kind: 'rec' | 'cobr', method: string): RecurrenceRoute | null => {
    const op = `${method === 'PUT' ? 'put' : 'get'}Webhook${kind === 'rec' ? 'Rec' : 'Cobr'}` as RecurrenceOp;
    const key = kind === 'rec' ? 'webhookRecUrl' : 'webhookCobrUrl';
    if (method === 'PUT')
      return {
        op,
        answer(text) {
          const { webhookUrl } = check(`PUT /webhook${kind} body`, webhookPutRequestSchema, json(text));
          state[key] = { url: webhookUrl, at: new Date().toISOString() };
          return [200, undefined];
        },
      };
    if (method === 'GET')
      return {
        op,
        answer() {
          const h = state[key];
          if (!h) throw new Problem(404, 'WebhookNaoEncontrado', 'no webhook registered');
          return [200, answered(`GET /webhook${kind}`, webhookRecSchema, { webhookUrl: h.url, criacao: h.at })];
        },
      };
    return null;
  };

  return (method, path, query) => {
    let m: RegExpExecArray | null;
    if (path === '/webhookrec') return hook('rec', method);
    if (path === '/webhookcobr') return hook('cobr', method);
    if (path === '/locrec' && method === 'POST')
      return {
        op: 'postLocRec',
        answer(text) {
          noBody('POST /locrec', text);
          return [201, answered('POST /locrec', locRecSchema, state.postLocRec())];
        },
      };
    if (path === '/rec' && method === 'POST')
      return {
        op: 'postRec',
        answer: (text) => [201, answered('POST /rec', recSchema, state.postRec(check('POST /rec body', recPostRequestSchema, json(text))))],
      };
    if (path === '/rec' && method === 'GET')
      return {
        op: 'listRec',
        answer() {
          const q = check('GET /rec query', listQuerySchema, Object.fromEntries(query));
          const page = Number(q['paginacao.paginaAtual'] ?? 0);
          const size = Number(q['paginacao.itensPorPagina'] ?? 100);
          return [200, answered('GET /rec', recsConsultadasSchema, state.list(q.inicio, q.fim, page, size))];
        },
      };
    if ((m = /^\/rec\/([^/]+)$/.exec(path))) {
      const idRec = () => check('idRec', recIdSchema, decodeURIComponent(m![1] as string));
      if (method === 'GET') return { op: 'getRec', answer: () => [200, answered('GET /rec/{idRec}', recSchema, state.complete(idRec()))] };
      if (method === 'PATCH')
        return {
          op: 'patchRec',
          answer(text) {
            const id = idRec();
            const body = check('PATCH /rec body', recPatchRequestSchema, json(text));
            if (body.status !== 'CANCELADA') throw new Problem(400, 'RecOperacaoInvalida', 'only a cancellation is supported');
            const notices = state.cancel(id, 'USUARIO_RECEBEDOR');
            later(() => notices);
            return [200, answered('PATCH /rec/{idRec}', recSchema, state.generated(id))];
          },
        };
      return null;
    }
    if (path === '/solicrec' && method === 'POST')
      return {
        op: 'postSolicRec',
        answer: (text) => [
          201,
          answered(
            'POST /solicrec',
            solicRecSchema,
            state.postSolicRec(check('POST /solicrec body', solicRecPostRequestSchema, json(text))),
          ),
        ],
      };
    if ((m = /^\/cobr\/([^/]+)$/.exec(path))) {
      const txid = () => check('txid', txidSchema, decodeURIComponent(m![1] as string));
      if (method === 'PUT')
        return {
          op: 'putCobr',
          answer(text) {
            const id = txid();
            const r = state.putCobr(id, check('PUT /cobr body', cobrPutRequestSchema, json(text)));
            // The receiver's PSP sends the instruction to the payer's, which schedules it: ATIVA, told on webhookcobr.
            if (r.created) later(() => [state.activate(id)]);
            return [r.created ? 201 : 200, answered('PUT /cobr/{txid}', cobrSchema, r.cobr)];
          },
        };
      if (method === 'GET') return { op: 'getCobr', answer: () => [200, answered('GET /cobr/{txid}', cobrSchema, state.cobr(txid()))] };
      return null;
    }
    if ((m = /^\/cobr\/([^/]+)\/retentativa\/([^/]+)$/.exec(path)) && method === 'POST') {
      const [rawTxid, rawDate] = [decodeURIComponent(m[1] as string), decodeURIComponent(m[2] as string)];
      return {
        op: 'postRetentativa',
        answer(text) {
          noBody('POST /cobr/{txid}/retentativa/{data}', text);
          const id = check('txid', txidSchema, rawTxid);
          const cobr = state.retry(id, check('data', isoDateSchema, rawDate));
          later(() => [state.cobrNotice(id)]);
          return [201, answered('POST /cobr/{txid}/retentativa/{data}', cobrSchema, cobr)];
        },
      };
    }
    return null;
  };
}
