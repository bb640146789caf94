/**
 * API Pix's cob and devolução routes over a PspState, for any fake PSP to mount under its own prefix (the fake
 * PSP at `/api/v2`, the fake Efí at `/v2`): `PUT|GET|PATCH <prefix>/cob/{txid}` and
 * `PUT|GET <prefix>/pix/{e2eid}/devolucao/{id}`. The host authenticates the call and applies its faults; these
 * routes check every path parameter and body against our schemas of the published spec (a mismatch is recorded
 * in the state's `violations` and answered 400 RequisicaoInvalida) and answer from the state, or say the call
 * is not theirs.
 */
import * as z from '../../../shared/domain/zod';
import {
  cobPatchRequestSchema,
  cobPutRequestSchema,
  devolucaoIdSchema,
  devolucaoRequestSchema,
  endToEndIdSchema,
  txidSchema,
} from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import { Problem, type PspState } from './state';

export type ApiPixOp = 'putCob' | 'getCob' | 'patchCob' | 'putDevolucao' | 'getDevolucao';

/** One call these routes take: its operation (for the host's faults) and its answer (or a thrown Problem). */
export interface ApiPixRoute {
  readonly op: ApiPixOp;
  answer(body: string): [number, unknown];
}

/** A schema check of what a fake was sent and its JSON body: a mismatch is a violation and a 400 problem. */
export function requestChecks(violations: string[]) {
  return {
    check<S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S> {
      const r = z.safeParse(schema, value);
      if (r.success) return r.data;
      const detail = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
      violations.push(`${what}: ${detail}`);
      throw new Problem(400, 'RequisicaoInvalida', detail);
    },
    json(text: string): unknown {
      try {
        return text ? JSON.parse(text) : undefined;
      } catch {
        violations.push('a body that is not JSON');
        throw new Problem(400, 'RequisicaoInvalida', 'body is not JSON');
      }
    },
  };
}

/** The route a call is (`path` as the host received it, query excluded), or null: not one of these. */
export function apiPixRoutes(state: PspState, opts: { prefix?: string } = {}): (method: string, path: string) => ApiPixRoute | null {
  const prefix = opts.prefix ?? '';
  const { check, json } = requestChecks(state.violations);
  return (method, fullPath) => {
    if (!fullPath.startsWith(prefix)) return null;
    const path = fullPath.slice(prefix.length);
    let m: RegExpExecArray | null;
    if ((m = /^\/cob\/([^/]+)$/.exec(path))) {
      const raw = decodeURIComponent(m[1] as string);
      const txid = () => check('txid', txidSchema, raw);
      if (method === 'PUT')
        return {
          op: 'putCob',
          answer(text) {
            const r = state.putCob(txid(), check('PUT /cob body', cobPutRequestSchema, json(text)));
            return [r.created ? 201 : 200, r.cob];
          },
        };
      if (method === 'GET') return { op: 'getCob', answer: () => [200, state.cob(txid())] };
      if (method === 'PATCH')
        return {
          op: 'patchCob',
          answer(text) {
            const id = txid();
            const body = check('PATCH /cob body', cobPatchRequestSchema, json(text));
            if (body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR')
              throw new Problem(400, 'CobOperacaoInvalida', 'only removal is supported');
            return [200, state.removeCob(id)];
          },
        };
      return null;
    }
    if ((m = /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/.exec(path))) {
      const [e2eRaw, idRaw] = [decodeURIComponent(m[1] as string), decodeURIComponent(m[2] as string)];
      const ids = () => [check('e2eid', endToEndIdSchema, e2eRaw), check('devolução id', devolucaoIdSchema, idRaw)] as const;
      if (method === 'PUT')
        return {
          op: 'putDevolucao',
          answer(text) {
            const [e2e, id] = ids();
            const r = state.putDevolucao(e2e, id, check('PUT /devolucao body', devolucaoRequestSchema, json(text)));
            return [r.created ? 201 : 200, r.devolucao];
          },
        };
      if (method === 'GET') return { op: 'getDevolucao', answer: () => [200, state.devolucao(...ids())] };
    }
    return null;
  };
}
