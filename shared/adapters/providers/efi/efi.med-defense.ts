/**
 * The receiver's defense of a PIX infraction (MED) at Efí, as the port PixInfractionDefense (DESIGN.md 9.4):
 * `POST /v2/gn/infracoes/:idInfracao/defesa` with `{analise: "rejeitado", justificativa}` (efi.schemas.ts names
 * the sources), and the infraction read back with its Pix.
 *
 * Efí has no read of one infraction: only the list `GET /v2/gn/infracoes?inicio&fim` by opening date. So `get`
 * looks for the id in windows of WINDOW_DAYS, newest first, back to `infraction_lookback_days` (default 90), and
 * reads the Pix it names (`GET /v2/pix/:e2eId`) for a MED return.
 *
 * A repeat is safe: `defend` reads the infraction first and sends nothing when it already shows our defense (or a
 * defense without its text, which is ours after a lost answer), and refuses one Efí has decided or another defense
 * made there, without a call. The POST is never retried here: with no answer it is ProviderUnavailable and the next
 * `defend` reads back first. Efí's 409 is read back too: our defense there is success.
 */
import type { PixInfractionDefense, PixInfractionState } from '../../../application/providers';
import { ProviderRejected } from '../../../application/providers';
import * as z from '../../../domain/zod';
import { logger } from '../../../observability';
import { pixSchema, type Pix } from '../api-pix/api-pix.schemas';
import { EFI_INFRACTION_LOOKBACK_DAYS } from '../providers.config';
import { EFI, EfiRefusal, type EfiClient } from './efi.client';
import { idInfracaoSchema, infractionListSchema, type Infraction } from './efi.schemas';
import { defenseRefusalOf, defenseRequestOf, infractionDecided, infractionStateOf, shownDefense } from './efi.transformers';

const DAY_MS = 86_400_000;
/** Each list call spans at most this many days (Efí's pages name no limit; small windows stop early when found). */
export const WINDOW_DAYS = 30;
const MAX_PAGES = 50;

/** Every infraction Efí lists opened between `since` and `until`, across its pages. */
export async function listInfractions(client: EfiClient, since: Date, until: Date): Promise<Infraction[]> {
  const infractions: Infraction[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams({ inicio: since.toISOString(), fim: until.toISOString(), 'paginacao.paginaAtual': String(page) });
    const a = await client.call('listInfractions', 'GET', `/v2/gn/infracoes?${q.toString()}`, infractionListSchema, undefined, {
      retry: true,
      notFoundIsNull: true,
    });
    if (!a) break;
    const list = Array.isArray(a) ? a : a.infracoes;
    infractions.push(...list);
    const pages = Array.isArray(a) ? 1 : (a.parametros?.paginacao?.quantidadeDePaginas ?? 1);
    if (page + 1 >= pages || list.length === 0) break;
  }
  return infractions;
}

export interface EfiMedDefense extends PixInfractionDefense {
  /** The infraction as Efí lists it, with its Pix (null when not found in the lookback). */
  find(infractionId: string): Promise<{ readonly infraction: Infraction; readonly pix: Pix | null } | null>;
}

export function efiMedDefense(client: EfiClient, opts: { readonly lookbackDays?: number; readonly now?: () => Date } = {}): EfiMedDefense {
  const lookbackMs = (opts.lookbackDays ?? EFI_INFRACTION_LOOKBACK_DAYS) * DAY_MS;
  const now = opts.now ?? (() => new Date());

  async function find(infractionId: string) {
    if (!z.safeParse(idInfracaoSchema, infractionId).success) return null;
    const end = now();
    const oldest = end.getTime() - lookbackMs;
    for (let until = end.getTime(); until > oldest; until -= WINDOW_DAYS * DAY_MS) {
      const since = Math.max(oldest, until - WINDOW_DAYS * DAY_MS);
      const infraction = (await listInfractions(client, new Date(since), new Date(until))).find((i) => i.idInfracao === infractionId);
      if (!infraction) continue;
      const pix = await client.call('getPix', 'GET', `/v2/pix/${encodeURIComponent(infraction.endToEndId)}`, pixSchema, undefined, {
        retry: true,
        notFoundIsNull: true,
      });
      return { infraction, pix };
    }
    return null;
  }

  const refuse = (code: string, status: number) => {
    logger.warn('Efí MED defense refused', { provider: EFI, operation: 'medDefense', code, status });
    return new ProviderRejected(EFI, 'medDefense', code, status);
  };

  return {
    provider: EFI,
    find,
    async get(infractionId): Promise<PixInfractionState> {
      const found = await find(infractionId);
      return found ? infractionStateOf(found.infraction, found.pix, now()) : { kind: 'not_found' };
    },
    async defend(infractionId, text) {
      const prepared = defenseRequestOf(text);
      // Ours to refuse, before any call: nothing reaches Efí (the status is the one Efí gives a body off its schema).
      if ('invalid' in prepared) throw refuse('defense_text_invalid', 400);
      const { request } = prepared;
      if (!z.safeParse(idInfracaoSchema, infractionId).success) throw refuse('infraction_not_found', 404);
      const held = await find(infractionId);
      if (held) {
        const shown = shownDefense(held.infraction, request.justificativa);
        if (shown === 'ours') return;
        if (shown === 'another') throw refuse('infraction_already_defended', 409);
        if (infractionDecided(held.infraction) || infractionStateOf(held.infraction, held.pix, now()).kind === 'closed')
          throw refuse('infraction_closed', 409);
      }
      // Not listed in the lookback: Efí may still hold it (its 404 says if not).
      try {
        await client.call('medDefense', 'POST', `/v2/gn/infracoes/${encodeURIComponent(infractionId)}/defesa`, z.unknown(), request);
      } catch (e) {
        if (!(e instanceof EfiRefusal)) throw e;
        if (e.status === 409) {
          // A defense already made (ours, its answer lost, or another) or another document: what Efí holds decides.
          const after = await find(infractionId);
          const shown = after ? shownDefense(after.infraction, request.justificativa) : 'none';
          if (shown === 'ours') return;
          throw refuse(shown === 'another' ? 'infraction_already_defended' : 'defense_refused', 409);
        }
        const code = defenseRefusalOf(e.status);
        if (code === 'defense_invalid')
          logger.error('Efí refused our MED defense request itself', {
            provider: EFI,
            operation: 'medDefense',
            code: e.efiName,
            page: true,
          });
        throw refuse(code, e.status);
      }
    },
  };
}
