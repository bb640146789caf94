/**
 * The MED defense through Efí (DESIGN.md 9.4, issue 44) against the fake Efí, over HTTPS with mutual TLS, no
 * DynamoDB: an infraction read back by its id (open, its deadline, defended or not), defended once with
 * `{analise: "rejeitado", justificativa}` as our schema of Efí's page takes it; a repeat reads back first and sends
 * nothing, also after a lost answer; another defense, a decided infraction, a passed deadline, an unknown id and
 * bad text each refused with our code word; Efí's decision read back as returned (a MED return) or not; a 5xx, a
 * hang and a list that does not answer are ProviderUnavailable; the fake's violations stay empty.
 */
import { randomBytes } from 'node:crypto';
import { ProviderRejected, ProviderUnavailable } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { buildLiveProviders } from '../../shared/adapters/providers/live-connectors';
import { efiConnectors, type EfiConnectors } from '../../shared/adapters/providers/efi/efi.connector';
import { DEFENSE_TEXT_MAX } from '../../shared/adapters/providers/efi/efi.schemas';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';

const TOKEN = randomBytes(24).toString('base64url');
const TIMEOUT_MS = 1000;
const DAY_MS = 86_400_000;
const TEXT = 'Venda legítima: pedido 4411 entregue em 12/05, comprovante de entrega e conversa com o cliente em anexo.';
let efi: FakeEfi;
let live: EfiConnectors;

const config = (over: Record<string, unknown> = {}) =>
  parseProvidersConfig({ efi: { ...efi.efiConfig(TOKEN), timeouts: { connect_ms: TIMEOUT_MS, total_ms: TIMEOUT_MS }, ...over } }, 'test');
const connect = (over: Record<string, unknown> = {}) => efiConnectors(config(over).efi!);

beforeAll(async () => {
  efi = await startFakeEfi({ hangMs: 5_000, pageSize: 2 });
  live = connect();
});
afterEach(() => {
  expect(efi.violations).toEqual([]);
  expect(efi.clearFaults()).toBe(0);
});
afterAll(async () => {
  live?.client.close();
  await efi?.close();
});

const defense = () => live.pixInfractionDefense;
const open = (valor = '80.00', o: { deadlineDays?: number; createdAt?: Date } = {}) =>
  efi.openInfraction(efi.receive(valor), { tipoSituacao: 'golpe', ...o });
const posts = (id: string) => efi.requests.filter((r) => r.method === 'POST' && r.path === `/v2/gn/infracoes/${id}/defesa`);
const rejected = async (p: Promise<unknown>, code: string, status: number) => {
  const e: unknown = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ProviderRejected);
  expect(e).toMatchObject({ provider: 'efi', operation: 'medDefense', code, status });
};

describe('the MED defense through the fake Efí', () => {
  it('reads an open infraction by id, defends it once as Efí’s page has it, and shows it defended', async () => {
    const i = open();
    expect(await defense().get(i.idInfracao)).toEqual({ kind: 'open', defended: false, deadline: i.dadosAnalise!.prazoFinalizacao });

    await defense().defend(i.idInfracao, `  ${TEXT}\u0000  `);
    expect(efi.defense(i.idInfracao)).toEqual({ analise: 'rejeitado', justificativa: TEXT });
    const [post] = posts(i.idInfracao);
    expect(post?.body).toEqual({ analise: 'rejeitado', justificativa: TEXT });
    expect(await defense().get(i.idInfracao)).toEqual({ kind: 'open', defended: true, deadline: i.dadosAnalise!.prazoFinalizacao });
  });

  it('a repeat reads back first and sends nothing; another text is refused without a call', async () => {
    const i = open();
    await defense().defend(i.idInfracao, TEXT);
    await defense().defend(i.idInfracao, TEXT);
    await defense().defend(i.idInfracao, `${TEXT.replace(/ /g, '  ')}\n`); // the same words
    expect(posts(i.idInfracao)).toHaveLength(1);
    expect(efi.defenseAttempts(i.idInfracao)).toBe(1);

    await rejected(defense().defend(i.idInfracao, 'Outra defesa.'), 'infraction_already_defended', 409);
    expect(efi.defenseAttempts(i.idInfracao)).toBe(1);
  });

  it('a defense whose answer was lost is unavailable; the retry finds it made and sends nothing more', async () => {
    const i = open();
    efi.failNext('medDefense', { lost: true });
    await expect(defense().defend(i.idInfracao, TEXT)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(efi.defense(i.idInfracao)?.justificativa).toBe(TEXT); // Efí took it
    await defense().defend(i.idInfracao, TEXT);
    expect(efi.defenseAttempts(i.idInfracao)).toBe(1);
  });

  it('a 5xx or no answer is ProviderUnavailable within the time limit, never sent twice; then it goes through', async () => {
    const i = open();
    efi.failNext('medDefense', { status: 500 });
    await expect(defense().defend(i.idInfracao, TEXT)).rejects.toMatchObject({ name: 'ProviderUnavailable', operation: 'medDefense' });
    expect(posts(i.idInfracao)).toHaveLength(1); // a POST is never repeated by the client
    efi.failNext('medDefense', { hang: true });
    const started = Date.now();
    await expect(defense().defend(i.idInfracao, TEXT)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 3);
    expect(efi.defense(i.idInfracao)).toBeUndefined();

    await defense().defend(i.idInfracao, TEXT);
    expect(efi.defense(i.idInfracao)?.justificativa).toBe(TEXT);

    efi.failNext('listInfractions', { status: 503 }, 2); // a read is tried once more, then unavailable
    await expect(defense().get(i.idInfracao)).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(defense().defend(i.idInfracao, TEXT)).resolves.toBeUndefined();
  });

  it('Efí’s decision is read back: a MED return is `returned`, a rejection `not_returned`; neither takes a defense', async () => {
    const returned = open('80.00');
    await defense().defend(returned.idInfracao, TEXT);
    efi.closeInfraction(returned.idInfracao, 'returned');
    const r = await defense().get(returned.idInfracao);
    expect(r).toMatchObject({ kind: 'closed', outcome: 'returned' });
    expect(Date.parse((r as { at: string }).at)).toBeGreaterThan(Date.now() - 60_000);

    const kept = open('20.00');
    efi.closeInfraction(kept.idInfracao, 'not_returned');
    const k = await defense().get(kept.idInfracao);
    expect(k).toMatchObject({ kind: 'closed', outcome: 'not_returned' });
    await rejected(defense().defend(kept.idInfracao, TEXT), 'infraction_closed', 409);
    expect(posts(kept.idInfracao)).toHaveLength(0);

    // Accepted by Efí with no return yet: still open (the payer's bank has to ask for it), no defense taken.
    const accepted = open('30.00');
    efi.setInfraction(accepted.idInfracao, 'ACEITA');
    expect(await defense().get(accepted.idInfracao)).toMatchObject({ kind: 'open', defended: false });
    await rejected(defense().defend(accepted.idInfracao, TEXT), 'infraction_closed', 409);
    expect(posts(accepted.idInfracao)).toHaveLength(0);
  });

  it('a passed deadline is Efí’s 422; an unknown id its 404; a malformed id and bad text are refused before any call', async () => {
    const late = open('10.00', { createdAt: new Date(Date.now() - 8 * DAY_MS), deadlineDays: 7 });
    await rejected(defense().defend(late.idInfracao, TEXT), 'defense_deadline_passed', 422);
    expect(efi.defense(late.idInfracao)).toBeUndefined();

    const unknown = `inf${randomBytes(8).toString('hex')}`;
    expect(await defense().get(unknown)).toEqual({ kind: 'not_found' });
    await rejected(defense().defend(unknown, TEXT), 'infraction_not_found', 404);
    expect(posts(unknown)).toHaveLength(1); // not listed, yet Efí may hold it: its 404 decides

    const before = efi.requests.length;
    expect(await defense().get('../x y')).toEqual({ kind: 'not_found' });
    await rejected(defense().defend('../x y', TEXT), 'infraction_not_found', 404);
    const i = open();
    await rejected(defense().defend(i.idInfracao, ' \u0000\n '), 'defense_text_invalid', 400);
    await rejected(defense().defend(i.idInfracao, 'x'.repeat(DEFENSE_TEXT_MAX + 1)), 'defense_text_invalid', 400);
    expect(efi.requests.length).toBe(before); // no token, no list, no POST
    await defense().defend(i.idInfracao, 'x'.repeat(DEFENSE_TEXT_MAX));
    expect(efi.defense(i.idInfracao)?.justificativa).toHaveLength(DEFENSE_TEXT_MAX);
  });

  it('finds an infraction opened weeks ago in windows of the list, back to infraction_lookback_days', async () => {
    const old = open('15.00', { createdAt: new Date(Date.now() - 45 * DAY_MS), deadlineDays: 60 });
    const before = efi.requests.length;
    expect(await defense().get(old.idInfracao)).toMatchObject({ kind: 'open', defended: false });
    const windows = efi.requests.slice(before).filter((r) => r.path === '/v2/gn/infracoes');
    expect(windows.length).toBeGreaterThanOrEqual(2); // the last 30 days, then the 30 before

    const near = connect({ infraction_lookback_days: 30 });
    try {
      expect(await near.pixInfractionDefense.get(old.idInfracao)).toEqual({ kind: 'not_found' });
      // Not listed within its lookback: sent anyway; Efí takes it (it holds the case).
      await near.pixInfractionDefense.defend(old.idInfracao, TEXT);
      expect(efi.defense(old.idInfracao)?.justificativa).toBe(TEXT);
      // Again: not listed, so Efí's 409 is read back, and the read cannot show it: refused, not taken for ours.
      await rejected(near.pixInfractionDefense.defend(old.idInfracao, TEXT), 'defense_refused', 409);
    } finally {
      near.client.close();
    }
    await defense().defend(old.idInfracao, TEXT); // within the default lookback: ours, nothing sent
    expect(efi.defenseAttempts(old.idInfracao)).toBe(2);
  });

  it('is Connectors.pixInfractionDefense when the efi block is configured', () => {
    const p = buildLiveProviders(config());
    try {
      expect(p.connectors?.pixInfractionDefense?.provider).toBe('efi');
      expect(buildLiveProviders(parseProvidersConfig({}, 'test')).connectors?.pixInfractionDefense).toBeUndefined();
    } finally {
      p.efi?.client.close();
      p.efi?.payIns.client.close();
    }
  });
});
