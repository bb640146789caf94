/**
 * The fake Efí's PIX pay-ins through the standard API Pix (`/v2/cob/{txid}`, `/v2/pix/{e2eId}/devolucao/{id}`,
 * served by the fake PSP's routes over `EfiState.payIns`): what a test does as the payer and as Efí. Efí keeps one
 * webhook per key, so a paid cob and a devolução reaching its final state are told where the sends are: the key's
 * registered webhook + `/pix`, with the body API Pix callbacks have (`{"pix": [...]}`).
 */
import type { Cob, Devolucao } from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import type { EfiState } from './state';

export interface CallbackAnswer {
  readonly status: number;
  readonly body: string;
}

export interface FakeEfiPayIns {
  /** A cob as Efí holds it. */
  cob(txid: string): Cob | undefined;
  /**
   * A payer pays an ATIVA cob (its amount unless `amount`): CONCLUIDA with its Pix, which GET /v2/pix/:e2eId then
   * answers; told on the key's webhook unless `callback: false` (`callbackStatus` null when not told).
   */
  pay(
    txid: string,
    opts?: { amount?: string; callback?: boolean; endToEndId?: string },
  ): Promise<{ endToEndId: string; callbackStatus: number | null }>;
  /** The status a new devolução is answered with (EM_PROCESSAMENTO unless set). */
  setDevolucaoOutcome(status: Devolucao['status']): void;
  /** A devolução reaches its final state, told on the key's webhook unless `callback: false`. */
  settleDevolucao(e2eid: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO', opts?: { callback?: boolean }): Promise<void>;
  /** Moves a cob's creation back (its expiry is ours to compute). */
  age(txid: string, seconds: number): void;
}

export function payIns(state: EfiState, postCallback: (body: unknown) => Promise<CallbackAnswer | null>): FakeEfiPayIns {
  return {
    cob: (txid) => state.payIns.cobs.get(txid),
    async pay(txid, o = {}) {
      const pix = state.payIns.pay(txid, o);
      const r = o.callback === false ? null : await postCallback({ pix: [pix] });
      return { endToEndId: pix.endToEndId, callbackStatus: r?.status ?? null };
    },
    setDevolucaoOutcome(status) {
      state.payIns.devolucaoOutcome = status;
    },
    async settleDevolucao(e2eid, id, status, o = {}) {
      const pix = state.payIns.settleDevolucao(e2eid, id, status);
      if (o.callback !== false) await postCallback({ pix: [pix] });
    },
    age: (txid, seconds) => state.payIns.age(txid, seconds),
  };
}
