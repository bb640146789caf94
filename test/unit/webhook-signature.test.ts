/**
 * Webhook signatures (DESIGN.md section 5): known answers computed independently (node:crypto in
 * the test, openssl and the Standard Webhooks spec example for fixed vectors), the
 * `standardwebhooks` reference library as oracle, and the merchant recipe (test/support).
 */
import * as crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import {
  hexSignatureHeaderName,
  payloadSignature,
  signatureHeaders,
  standardSignature,
  verifyPayloadSignature,
  verifyStandardSignature,
} from '../../shared/domain/webhooks/signature';
import { verifyWebhook } from '../support/merchant-verify';

const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
const nowSec = () => Math.floor(Date.now() / 1000);

/** Independent computations, straight from DESIGN.md section 5. */
const refHex = (body: string | Buffer, secret: string) =>
  crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
const refStandard = (id: string, ts: number, body: string | Buffer, secret: string) => {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const body64 = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return `v1,${crypto
    .createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body64]))
    .digest('base64')}`;
};

const bodies = [
  JSON.stringify({ event: 'payment.success', payment_id: 'pi_x', amount: 10.5, currency: 'BRL', metadata: {} }),
  JSON.stringify({
    event: 'payout.completed',
    payout_id: 'po_x',
    beneficiary_name: 'José Ñúñez 測試 🎉',
    amount: 1,
    currency: 'MXN',
  }),
  '{}',
  ' {"spaces": true}\n',
];

describe('payloadSignature (X-Signature / X-Webhook-Signature)', () => {
  it('matches a fixed vector computed with openssl (whole secret string as key, prefix included)', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"event":"payment.success","payment_id":"pi_test","amount":10.5}';
    // printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET"
    expect(payloadSignature(body, secret)).toBe('d6504a424c4253b574421acc4bf7cbb82608cd2b07e3ca3240f21a96d654b1ad');
    expect(payloadSignature(Buffer.from(body), secret)).toBe('d6504a424c4253b574421acc4bf7cbb82608cd2b07e3ca3240f21a96d654b1ad');
  });

  it.each(bodies)('is the lowercase hex HMAC of the exact bytes (%#)', (body) => {
    const secret = newSecret();
    const sig = payloadSignature(body, secret);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(sig).toBe(refHex(body, secret));
    // Keyed with the whole string, not the decoded bytes.
    expect(sig).not.toBe(
      crypto
        .createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(body)
        .digest('hex'),
    );
  });

  it('signs raw bytes, not a string round trip (invalid UTF-8 stays as sent)', () => {
    const secret = newSecret();
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(payloadSignature(raw, secret)).toBe(refHex(raw, secret));
    expect(payloadSignature(raw, secret)).not.toBe(refHex(raw.toString('utf8'), secret));
  });
});

describe('standardSignature (Webhook-Signature)', () => {
  it('reproduces the Standard Webhooks specification example (checked with openssl too)', () => {
    expect(
      standardSignature('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it.each(bodies)('equals the independent computation and the reference library sign() (%#)', (body) => {
    const secret = newSecret();
    const ts = 1_750_000_000;
    const sig = standardSignature('evt_abc', ts, body, secret);
    expect(sig).toBe(refStandard('evt_abc', ts, body, secret));
    expect(sig).toBe(new Webhook(secret).sign('evt_abc', new Date(ts * 1000), body));
  });

  it('refuses a secret that is not base64 and a non-integer timestamp', () => {
    expect(() => standardSignature('evt_1', 1, '{}', 'whsec_not base64!')).toThrow();
    expect(() => standardSignature('evt_1', 1, '{}', 'whsec_')).toThrow();
    expect(() => standardSignature('evt_1', 1.5, '{}', newSecret())).toThrow();
  });
});

describe('signatureHeaders', () => {
  const body = bodies[0]!;

  it('payment events carry x-signature, payout events x-webhook-signature (never both)', () => {
    const secret = newSecret();
    const pay = signatureHeaders({
      eventId: 'evt_1',
      eventType: 'payment.success',
      timestampSec: 1_700_000_000,
      rawBody: body,
      secrets: [secret],
    });
    expect(Object.keys(pay).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-signature']);
    expect(pay).toEqual({
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': refStandard('evt_1', 1_700_000_000, body, secret),
      'x-signature': refHex(body, secret),
    });
    const payout = signatureHeaders({
      eventId: 'evt_2',
      eventType: 'payout.failed',
      timestampSec: 1_700_000_000,
      rawBody: body,
      secrets: [secret],
    });
    expect(Object.keys(payout).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-webhook-signature']);
    expect(payout).toMatchObject({ 'x-webhook-signature': refHex(body, secret) });
    expect(hexSignatureHeaderName('payment.pending_3ds')).toBe('x-signature');
    expect(hexSignatureHeaderName('payout.cancelled')).toBe('x-webhook-signature');
    expect(hexSignatureHeaderName('payouts')).toBe('x-signature');
  });

  it('two secrets: space-separated v1 values and comma-separated hex values, in the given order', () => {
    const [a, b] = [newSecret(), newSecret()];
    const h = signatureHeaders({
      eventId: 'evt_r',
      eventType: 'payout.completed',
      timestampSec: 1_700_000_000,
      rawBody: body,
      secrets: [a, b],
    });
    expect(h['webhook-signature']).toBe(`${refStandard('evt_r', 1_700_000_000, body, a)} ${refStandard('evt_r', 1_700_000_000, body, b)}`);
    expect('x-webhook-signature' in h && h['x-webhook-signature']).toBe(`${refHex(body, a)},${refHex(body, b)}`);
  });

  it('refuses no secret and an id that cannot be a header value', () => {
    expect(() =>
      signatureHeaders({ eventId: 'evt_1', eventType: 'payment.success', timestampSec: 1, rawBody: body, secrets: [] }),
    ).toThrow();
    expect(() =>
      signatureHeaders({ eventId: 'evt 1\r\n', eventType: 'payment.success', timestampSec: 1, rawBody: body, secrets: [newSecret()] }),
    ).toThrow();
  });

  describe('verified by the standardwebhooks reference library', () => {
    it.each(bodies)('one secret (%#)', (raw) => {
      const secret = newSecret();
      const h = signatureHeaders({
        eventId: 'evt_lib',
        eventType: 'payment.success',
        timestampSec: nowSec(),
        rawBody: raw,
        secrets: [secret],
      });
      expect(new Webhook(secret).verify(raw, h)).toEqual(JSON.parse(raw));
      expect(new Webhook(secret).verify(Buffer.from(raw), h)).toEqual(JSON.parse(raw));
      expect(() => new Webhook(newSecret()).verify(raw, h)).toThrow('No matching signature found');
    });

    it('two secrets: either one verifies, a third does not', () => {
      const [a, b] = [newSecret(), newSecret()];
      const raw = bodies[1]!;
      const h = signatureHeaders({
        eventId: 'evt_rot',
        eventType: 'payout.completed',
        timestampSec: nowSec(),
        rawBody: raw,
        secrets: [a, b],
      });
      expect(new Webhook(a).verify(raw, h)).toEqual(JSON.parse(raw));
      expect(new Webhook(b).verify(raw, h)).toEqual(JSON.parse(raw));
      expect(() => new Webhook(newSecret()).verify(raw, h)).toThrow();
    });

    it('a tampered body, id or timestamp fails, for the library and for us', () => {
      const secret = newSecret();
      const raw = bodies[0]!;
      const ts = nowSec();
      const h = signatureHeaders({ eventId: 'evt_t', eventType: 'payment.success', timestampSec: ts, rawBody: raw, secrets: [secret] });
      const lib = new Webhook(secret);
      const tampered = [
        { raw: raw.replace('10.5', '99.5'), h },
        { raw, h: { ...h, 'webhook-id': 'evt_u' } },
        { raw, h: { ...h, 'webhook-timestamp': String(ts - 1) } },
      ];
      for (const t of tampered) {
        expect(() => lib.verify(t.raw, t.h)).toThrow();
        expect(
          verifyStandardSignature({
            id: t.h['webhook-id'],
            timestamp: t.h['webhook-timestamp'],
            signatureHeader: t.h['webhook-signature'],
            rawBody: t.raw,
            secret,
          }),
        ).toBe(false);
      }
      expect(
        verifyStandardSignature({
          id: h['webhook-id'],
          timestamp: h['webhook-timestamp'],
          signatureHeader: h['webhook-signature'],
          rawBody: raw,
          secret,
        }),
      ).toBe(true);
      expect(verifyPayloadSignature(raw.replace('10.5', '99.5'), 'x-signature' in h ? h['x-signature'] : '', secret)).toBe(false);
    });
  });
});

describe('verifyPayloadSignature', () => {
  const body = bodies[1]!;
  const [a, b] = [newSecret(), newSecret()];

  it('accepts the genuine signature, either of a rotation pair, and upper-case hex', () => {
    expect(verifyPayloadSignature(body, refHex(body, a), a)).toBe(true);
    expect(verifyPayloadSignature(Buffer.from(body), `${refHex(body, a)},${refHex(body, b)}`, b)).toBe(true);
    expect(verifyPayloadSignature(body, `${refHex(body, a)}, ${refHex(body, b)}`, a)).toBe(true);
    expect(verifyPayloadSignature(body, refHex(body, a).toUpperCase(), a)).toBe(true);
  });

  it('rejects another secret, a tampered body, truncated or padded or empty values', () => {
    const sig = refHex(body, a);
    expect(verifyPayloadSignature(body, sig, b)).toBe(false);
    expect(verifyPayloadSignature(`${body} `, sig, a)).toBe(false);
    expect(verifyPayloadSignature(body, sig.slice(0, 63), a)).toBe(false);
    expect(verifyPayloadSignature(body, `${sig}0`, a)).toBe(false);
    expect(verifyPayloadSignature(body, `${sig.slice(0, 62)}zz`, a)).toBe(false);
    expect(verifyPayloadSignature(body, '', a)).toBe(false);
    expect(verifyPayloadSignature(body, undefined, a)).toBe(false);
    expect(verifyPayloadSignature(body, ',,,', a)).toBe(false);
  });

  it('compares with crypto.timingSafeEqual', () => {
    // The module object itself (an `import *` namespace is a copy under CommonJS interop).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const spy = jest.spyOn(require('node:crypto') as typeof crypto, 'timingSafeEqual');
    try {
      expect(verifyPayloadSignature(body, refHex(body, a), a)).toBe(true);
      expect(spy).toHaveBeenCalled();
      spy.mockClear();
      expect(
        verifyStandardSignature({
          id: 'evt_1',
          timestamp: 100,
          signatureHeader: refStandard('evt_1', 100, body, a),
          rawBody: body,
          secret: a,
          nowSec: 100,
        }),
      ).toBe(true);
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('verifyStandardSignature', () => {
  const body = bodies[0]!;
  const secret = newSecret();
  const ts = 1_700_000_000;
  const sig = refStandard('evt_v', ts, body, secret);
  const check = (over: Partial<Parameters<typeof verifyStandardSignature>[0]>) =>
    verifyStandardSignature({ id: 'evt_v', timestamp: String(ts), signatureHeader: sig, rawBody: body, secret, nowSec: ts, ...over });

  it('tolerance boundaries: 300 s either way passes, 301 s fails; a custom tolerance applies', () => {
    expect(check({})).toBe(true);
    expect(check({ nowSec: ts + 300 })).toBe(true);
    expect(check({ nowSec: ts + 301 })).toBe(false);
    expect(check({ nowSec: ts - 300 })).toBe(true);
    expect(check({ nowSec: ts - 301 })).toBe(false);
    expect(check({ nowSec: ts + 60, toleranceSec: 60 })).toBe(true);
    expect(check({ nowSec: ts + 61, toleranceSec: 60 })).toBe(false);
  });

  it('defaults to the current clock', () => {
    const now = nowSec();
    const fresh = refStandard('evt_v', now, body, secret);
    expect(verifyStandardSignature({ id: 'evt_v', timestamp: now, signatureHeader: fresh, rawBody: body, secret })).toBe(true);
    expect(check({ nowSec: undefined })).toBe(false); // 2023 is long past
  });

  it('accepts any of several space-separated signatures and skips other versions', () => {
    const other = refStandard('evt_v', ts, body, newSecret());
    expect(check({ signatureHeader: `${other} ${sig}` })).toBe(true);
    expect(check({ signatureHeader: `v2,${sig.slice(3)} ${other}` })).toBe(false);
    expect(check({ signatureHeader: sig.slice(3) })).toBe(false);
  });

  it('rejects tampered parts and malformed headers', () => {
    expect(check({ rawBody: `${body} ` })).toBe(false);
    expect(check({ id: 'evt_w' })).toBe(false);
    expect(check({ timestamp: String(ts + 1), nowSec: ts })).toBe(false);
    expect(check({ timestamp: `${ts}.0` })).toBe(false);
    expect(check({ timestamp: `0x${ts.toString(16)}` })).toBe(false);
    expect(check({ timestamp: '' })).toBe(false);
    expect(check({ id: '' })).toBe(false);
    expect(check({ signatureHeader: '' })).toBe(false);
    expect(check({ signatureHeader: `${sig.slice(0, -1)}` })).toBe(false); // base64 without padding
    expect(check({ secret: newSecret() })).toBe(false);
  });
});

describe('merchant recipe (test/support/merchant-verify.ts)', () => {
  const deliver = (
    eventType: string,
    secrets: string[],
    ts = nowSec(),
    raw = JSON.stringify({ event: eventType, event_id: 'evt_m', amount: 12.34, name: 'Café' }),
  ) => ({
    raw,
    ts,
    headers: signatureHeaders({ eventId: 'evt_m', eventType, timestampSec: ts, rawBody: raw, secrets }) as unknown as Record<
      string,
      string
    >,
  });
  /** As an HTTP framework hands them over: canonical casing. */
  const titleCase = (h: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(h).map(([k, v]) => [k.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase()), v]),
    );

  it('accepts genuine payment and payout deliveries, as string or Buffer, any header casing', () => {
    const secret = newSecret();
    for (const type of ['payment.success', 'payout.completed']) {
      const d = deliver(type, [secret]);
      expect(verifyWebhook(d.raw, d.headers, secret)).toEqual({ ok: true, event: JSON.parse(d.raw) });
      expect(verifyWebhook(Buffer.from(d.raw), titleCase(d.headers), secret)).toEqual({ ok: true, event: JSON.parse(d.raw) });
    }
  });

  it('accepts either secret during a rotation', () => {
    const [a, b] = [newSecret(), newSecret()];
    const d = deliver('payment.failed', [b, a]);
    expect(verifyWebhook(d.raw, d.headers, a).ok).toBe(true);
    expect(verifyWebhook(d.raw, d.headers, b).ok).toBe(true);
    expect(verifyWebhook(d.raw, d.headers, newSecret()).ok).toBe(false);
  });

  it('rejects tampered, replayed, mis-keyed and incomplete deliveries', () => {
    const secret = newSecret();
    const d = deliver('payment.success', [secret]);
    const reject = (raw: string, headers: Record<string, string | undefined>, now = d.ts, key = secret) => {
      const r = verifyWebhook(raw, headers, key, now);
      expect(r.ok).toBe(false);
      return r.ok ? '' : r.reason;
    };
    expect(verifyWebhook(d.raw, d.headers, secret, d.ts + 300).ok).toBe(true);
    expect(reject(d.raw.replace('12.34', '99.34'), d.headers)).toBe('bad X-Signature');
    expect(reject(d.raw, d.headers, d.ts + 301)).toBe('timestamp too old or too new');
    expect(reject(d.raw, d.headers, d.ts - 301)).toBe('timestamp too old or too new');
    expect(reject(d.raw, { ...d.headers, 'webhook-id': 'evt_other' })).toBe('bad Webhook-Signature');
    expect(reject(d.raw, { ...d.headers, 'webhook-timestamp': String(d.ts + 1) })).toBe('bad Webhook-Signature');
    expect(reject(d.raw, d.headers, d.ts, newSecret())).toBe('bad X-Signature');
    expect(reject(d.raw, { ...d.headers, 'x-signature': undefined })).toMatch(/missing/);
    expect(reject(d.raw, { ...d.headers, 'webhook-signature': undefined })).toMatch(/missing/);
    // A valid hex signature alone is not enough, nor a Standard Webhooks one alone.
    expect(reject(d.raw, { ...d.headers, 'webhook-signature': 'v1,AAAA' })).toBe('bad Webhook-Signature');
    expect(reject(d.raw, { ...d.headers, 'x-signature': '0'.repeat(64) })).toBe('bad X-Signature');
  });

  it('the copyable block is self-contained (node:crypto only) and under 50 lines', () => {
    const source = readFileSync(join(__dirname, '../support/merchant-verify.ts'), 'utf8');
    const block = source.split('// --- verify-webhook: begin ---\n')[1]?.split('// --- verify-webhook: end ---')[0];
    expect(block).toBeDefined();
    expect(block!.split('\n').length).toBeLessThan(50);
    const imports = [...block!.matchAll(/from\s+'([^']+)'|require\('([^']+)'\)/g)].map((m) => m[1] ?? m[2]);
    expect(imports).toEqual(['node:crypto']);
  });
});
