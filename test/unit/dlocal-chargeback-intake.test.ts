/**
 * dLocal's chargeback notices wired: the signature checked before anything is read, then the chargeback read back
 * (GET /chargebacks/{id}); the read-back's fields over the signed notice's, in our words (dispute signal, minor units,
 * our payment from a card order of ours). The client is a stub: no call leaves.
 */
import type { DlocalCall, DlocalClient } from '../../shared/adapters/providers/dlocal/dlocal.client';
import { cardChargebackOf, chargebackOf, dlocalChargebacks } from '../../shared/adapters/providers/dlocal/dlocal.chargeback-intake';
import { authorizationOf, signatureOf } from '../../shared/adapters/providers/dlocal/dlocal.signature';
import { cardOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';
import { ProviderUnavailable } from '../../shared/application/providers';
import { chargebackKey } from '../../shared/application/rails';
import type * as z from '../../shared/domain/zod';

const cfg = { x_login: 'merchant-login', secret_key: 'merchant-secret' };
const pi = 'pi_AAECAwQFBgcICQoLDA0ODw';
const signed = (body: string, secret = cfg.secret_key) => {
  const xDate = '2026-11-25T12:00:00.000Z';
  return { 'x-date': xDate, authorization: authorizationOf(signatureOf(secret, cfg.x_login, xDate, body)) };
};
const notice = {
  id: 'CHAR42342',
  payment_id: 'D-4-1',
  amount: 100.5,
  currency: 'BRL',
  status: 'PENDING' as const,
  order_id: cardOrderIdOf(pi),
  reason_code: '10.4',
};

/** A client whose answers are scripted per path; it records the paths asked. */
function stub(answers: Record<string, { ok: unknown } | { refused: { status: number; code: number | null } } | Error>) {
  const asked: string[] = [];
  const client = {
    async payins<S extends z.ZodMiniType>(call: DlocalCall<S>) {
      asked.push(`${call.method} ${call.path}`);
      const a = answers[call.path];
      if (!a) throw new Error(`unexpected ${call.path}`);
      if (a instanceof Error) throw a;
      return a as never;
    },
  } as unknown as DlocalClient;
  return { client, asked };
}

describe('chargebackOf / cardChargebackOf (pure)', () => {
  it('takes the read-back status over the notice; keeps what the read-back leaves out', () => {
    const c = chargebackOf(notice, { id: 'CHAR42342', status: 'COMPLETED' });
    expect(c).toMatchObject({ status: 'COMPLETED', payment_id: 'D-4-1', amount: 100.5, currency: 'BRL' });
    expect(chargebackOf(notice, { id: 'CHAR42342', status: 'REVERSAL', amount: 90, currency: 'BRL' })).toMatchObject({ amount: 90 });
  });

  it('a read-back of another chargeback is none', () => {
    expect(chargebackOf(notice, { id: 'OTHER', status: 'COMPLETED' })).toBeNull();
  });

  it('in our words: signal, minor units, our payment from a card order of ours', () => {
    expect(cardChargebackOf({ ...notice, status: 'COMPLETED' })).toEqual({
      chargebackId: 'CHAR42342',
      providerPaymentId: 'D-4-1',
      paymentId: pi,
      status: 'COMPLETED',
      signal: 'withdrawn',
      amountMinor: 10050,
      currency: 'BRL',
      reasonCode: '10.4',
    });
    expect(cardChargebackOf({ ...notice, status: 'PENDING', order_id: 'merchant_num_1' })).toMatchObject({ signal: null, paymentId: null });
    expect(cardChargebackOf({ ...notice, status: 'REVERSAL', currency: 'CLP', amount: 1500 })).toMatchObject({
      signal: 'won',
      amountMinor: 1500,
    });
  });

  it('one effect per chargeback and status', () => {
    expect(chargebackKey({ chargebackId: 'CHAR1', status: 'COMPLETED' })).toBe('chargeback:CHAR1:COMPLETED');
  });
});

describe('dlocalChargebacks', () => {
  it('a forged or unsigned notice is never read nor read back', () => {
    const { client, asked } = stub({});
    const cb = dlocalChargebacks(cfg, client);
    const body = JSON.stringify(notice);
    expect(cb.parse(signed(body, 'another-secret'), body)).toEqual({ forged: true });
    expect(cb.parse({}, body)).toEqual({ forged: true });
    expect(asked).toEqual([]);
  });

  it('a signed body that is not a chargeback is null', () => {
    const body = JSON.stringify({ id: 'X', status: 'PAID' });
    expect(dlocalChargebacks(cfg, stub({}).client).parse(signed(body), body)).toBeNull();
  });

  it('reads the chargeback back; its status counts, not the notice’s', async () => {
    const { client, asked } = stub({ '/chargebacks/CHAR42342': { ok: { id: 'CHAR42342', status: 'COMPLETED' } } });
    const body = JSON.stringify(notice);
    const parsed = dlocalChargebacks(cfg, client).parse(signed(body), body);
    expect(parsed).toMatchObject({ chargebackId: 'CHAR42342' });
    const c = await (parsed as { readBack(): Promise<unknown> }).readBack();
    expect(c).toMatchObject({ status: 'COMPLETED', signal: 'withdrawn', paymentId: pi, amountMinor: 10050 });
    expect(asked).toEqual(['GET /chargebacks/CHAR42342']);
  });

  it('without an order in either, the payment is read back by dLocal’s id for its order_id', async () => {
    const { order_id: _o, ...bare } = notice;
    const { client, asked } = stub({
      '/chargebacks/CHAR42342': { ok: { id: 'CHAR42342', status: 'COMPLETED' } },
      '/payments/D-4-1': { ok: { id: 'D-4-1', status: 'PAID', amount: 100.5, currency: 'BRL', order_id: cardOrderIdOf(pi) } },
    });
    const body = JSON.stringify(bare);
    const parsed = dlocalChargebacks(cfg, client).parse(signed(body), body) as { readBack(): Promise<unknown> };
    expect(await parsed.readBack()).toMatchObject({ paymentId: pi });
    expect(asked).toEqual(['GET /chargebacks/CHAR42342', 'GET /payments/D-4-1']);
  });

  it('not found is none; any other refusal, or another chargeback answered, is no answer', async () => {
    const body = JSON.stringify(notice);
    const read = (answer: Parameters<typeof stub>[0][string]) =>
      (
        dlocalChargebacks(cfg, stub({ '/chargebacks/CHAR42342': answer }).client).parse(signed(body), body) as {
          readBack(): Promise<unknown>;
        }
      ).readBack();
    await expect(read({ refused: { status: 404, code: 4000 } })).resolves.toBeNull();
    await expect(read({ refused: { status: 403, code: 3001 } })).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(read({ ok: { id: 'OTHER', status: 'COMPLETED' } })).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});
