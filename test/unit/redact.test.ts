/** Log redaction: PANs, CVVs, documents and secrets never reach a log line. */
import { Logger } from '@aws-lambda-powertools/logger';
import type { CustomJsonReplacerFn } from '@aws-lambda-powertools/logger/types';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  isCardNumber,
  luhnValid,
  REDACTED,
  redactDeep,
  redactReplacer,
  redactString,
  redactValue,
} from '../../shared/observability/redact';

// Compile-time proof that the replacer plugs into Powertools' Logger option.
const asPowertools: CustomJsonReplacerFn = redactReplacer;
void asPowertools;

const NINETEEN = '6222021234567890128'; // 19 digits, Luhn check digit computed by hand (…012 + 8)
const CARDS: Array<[string, string]> = [
  ['4242424242424242', '4242'],
  ['5555555555554444', '4444'],
  ['378282246310005', '0005'], // Amex, 15 digits
  ['4000000000003220', '3220'],
  [NINETEEN, '0128'],
  ['4242 4242 4242 4242', '4242'],
  ['4242-4242-4242-4242', '4242'],
];
const mask = (last4: string) => `************${last4}`;
const digitsOf = (s: string) => s.replace(/\D/g, '');

describe('luhn / card detection', () => {
  it('accepts the spec test cards and rejects non-Luhn numbers', () => {
    for (const [card] of CARDS) expect(isCardNumber(digitsOf(card))).toBe(true);
    expect(luhnValid('1234567812345678')).toBe(false);
    expect(isCardNumber('1234567812345678')).toBe(false);
  });
});

describe('redactString', () => {
  it.each(CARDS)('masks %s inside free text', (card, last4) => {
    const out = redactString(`charge failed for card ${card} (retry later)`);
    expect(out).toBe(`charge failed for card ${mask(last4)} (retry later)`);
    expect(out).not.toContain(digitsOf(card));
  });

  it('masks cards at the edges of a string and next to punctuation', () => {
    expect(redactString('4242424242424242')).toBe(mask('4242'));
    expect(redactString('pan=5555555555554444&x=1')).toBe(`pan=${mask('4444')}&x=1`);
    expect(redactString('"378282246310005"')).toBe(`"${mask('0005')}"`);
  });

  it('finds a card inside a longer separated run (card followed by expiry, preceded by a quantity)', () => {
    expect(redactString('4242 4242 4242 4242 12 27')).toBe(`${mask('4242')} 12 27`);
    expect(redactString('qty 1 4242-4242-4242-4242')).toBe(`qty 1 ${mask('4242')}`);
    expect(redactString('1234567812345678 4242424242424242')).toBe(`1234567812345678 ${mask('4242')}`);
  });

  it('leaves non-card digit runs alone', () => {
    const text =
      'order 1234567812345678 at 2026-01-15T10:30:45.123Z epoch 1767225600 ' +
      'ms 1767225600009 compact 20260115103042 id 12345678901234567890123 amount 150.00';
    // 1767225600009 and 20260115103042 pass Luhn but start with issuer prefixes no card uses.
    expect(luhnValid('1767225600009')).toBe(true);
    expect(luhnValid('20260115103042')).toBe(true);
    expect(redactString(text)).toBe(text);
  });

  it('masks sk_test_ / sk_live_ keys keeping the last four characters', () => {
    const test = 'sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaZ9x_';
    const live = 'sk_live_51HxYz-AbCdEfGhIjKlMnOp1234';
    const out = redactString(`keys: ${test}, ${live}.`);
    expect(out).toBe('keys: sk_test_****Z9x_, sk_live_****1234.');
    expect(redactString('sk_test_abc')).toBe('sk_test_****');
  });

  it('masks whsec_ webhook secrets and Bearer tokens', () => {
    expect(redactString('secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+/== rotated')).toBe('secret whsec_**** rotated');
    expect(redactString('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-_x ok')).toBe('Authorization: Bearer **** ok');
    expect(redactString('bearer sk_test_abcdefghijkl')).toBe('Bearer ****');
  });

  it('masks cvv key/value pairs in text that is not JSON', () => {
    expect(redactString('number=4242424242424242&cvv=123&exp=12/27')).toBe(`number=${mask('4242')}&cvv=***&exp=12/27`);
    expect(redactString('{"card":{"cvc": "1234",}')).toBe('{"card":{"cvc": "***",}');
  });

  it('is idempotent', () => {
    const once = redactString('4242424242424242 sk_test_abcdefghijkl whsec_abc Bearer abc cvv=123');
    expect(redactString(once)).toBe(once);
  });
});

describe('redactValue / redactReplacer key rules', () => {
  it.each(CARDS)('masks card %s under an arbitrary key', (card, last4) => {
    expect(redactValue('note', `paid with ${card}`)).toBe(`paid with ${mask(last4)}`);
    expect(JSON.parse(JSON.stringify({ anything: { deeper: card } }, redactReplacer))).toEqual({
      anything: { deeper: mask(last4) },
    });
  });

  it('masks card-number keys whatever their spelling, even without Luhn', () => {
    expect(redactValue('number', '4242424242424242')).toBe(mask('4242'));
    expect(redactValue('cardNumber', '1234567812345678')).toBe(mask('5678'));
    expect(redactValue('card-number', 4242424242424242)).toBe(mask('4242'));
    expect(redactValue('PAN', '378282246310005')).toBe(mask('0005'));
    expect(redactValue('number', '4242 4242 4242 4242')).toBe(mask('4242'));
    expect(redactValue('number', '42')).toBe('42');
  });

  it('removes cvv under card.cvv, CVV, cvc, cvv2 and security code variants', () => {
    const input = {
      card: { number: '4242424242424242', cvv: '123', expiry: '12/2027' },
      CVV: '456',
      cvc: 789,
      Cvv2: '321',
      securityCode: '654',
      'security-code': '987',
    };
    const json = JSON.stringify(input, redactReplacer);
    for (const secret of ['123', '456', '789', '321', '654', '987', '4242424242424242']) {
      expect(json).not.toContain(secret);
    }
    expect(JSON.parse(json)).toEqual({
      card: { number: mask('4242'), cvv: REDACTED, expiry: '12/2027' },
      CVV: REDACTED,
      cvc: REDACTED,
      Cvv2: REDACTED,
      securityCode: REDACTED,
      'security-code': REDACTED,
    });
  });

  it('keeps only the last 3 characters of national documents', () => {
    expect(redactValue('document', '52998224725')).toBe('***725');
    expect(redactValue('taxId', '529.982.247-25')).toBe('***-25');
    expect(redactValue('CNPJ', '11222333000181')).toBe('***181');
    expect(redactValue('document_number', 52998224725)).toBe('***725');
    for (const key of ['cpf', 'rut', 'dni', 'curp', 'tax-id']) expect(redactValue(key, 'ABCDEFGH')).toBe('***FGH');
    expect(redactValue('dni', '1234')).toBe(REDACTED);
  });

  it('redacts secrets by key name', () => {
    for (const key of [
      'api_key',
      'apiKey',
      'x-api-key',
      'X-Api-Key',
      'Authorization',
      'secret',
      'webhookSecret',
      'password',
      'token',
      'current',
      'previous',
    ]) {
      expect(redactValue(key, 'hunter2-value')).toBe(REDACTED);
    }
    expect(redactValue('current', { value: 'whsec_x', created_at: 'x' })).toBe(REDACTED);
  });

  it('passes non-sensitive values through', () => {
    expect(redactValue('amount', 1500)).toBe(1500);
    expect(redactValue('currency', 'BRL')).toBe('BRL');
    expect(redactValue('ok', true)).toBe(true);
    expect(redactValue('x', null)).toBeNull();
    const obj = { a: 1 };
    expect(redactValue('obj', obj)).toBe(obj);
  });

  it('redacts JSON documents embedded in strings (API Gateway body)', () => {
    const body = '{"card":{"number":"4242424242424242","cvv":"123"},"amount":1500}';
    const out = redactValue('body', body) as string;
    expect(JSON.parse(out)).toEqual({ card: { number: mask('4242'), cvv: REDACTED }, amount: 1500 });
    expect(JSON.parse(redactValue('body', '[{"cvc":"999","pan":4242424242424242}]') as string)).toEqual([
      { cvc: REDACTED, pan: mask('4242') },
    ]);
    // Not JSON after all: free-text rules still apply.
    expect(redactValue('body', '{not json 4242424242424242')).toBe(`{not json ${mask('4242')}`);
  });
});

describe('redactDeep', () => {
  it('redacts nested objects, arrays, Maps and Errors without mutating the input', () => {
    const input = {
      payer: { document: '52998224725', name: 'Ana' },
      cards: [{ number: '5555555555554444', cvv: '123' }, 'backup 378282246310005'],
      headers: new Map([['authorization', 'Bearer abc']]),
      error: new Error('declined for 4242424242424242'),
      at: new Date(0),
    };
    const out = redactDeep(input) as Record<string, unknown>;
    expect(out.payer).toEqual({ document: '***725', name: 'Ana' });
    expect(out.cards).toEqual([{ number: mask('4444'), cvv: REDACTED }, `backup ${mask('0005')}`]);
    expect((out.headers as Map<string, unknown>).get('authorization')).toBe(REDACTED);
    expect((out.error as { message: string }).message).toBe(`declined for ${mask('4242')}`);
    expect(out.at).toBe(input.at);
    expect(input.payer.document).toBe('52998224725');
    expect(input.cards[0]).toEqual({ number: '5555555555554444', cvv: '123' });
  });

  it('survives cycles and keeps shared references shared', () => {
    const shared = { cvv: '123' };
    const node: Record<string, unknown> = { a: shared, b: shared, pan: '4242424242424242' };
    node.self = node;
    const out = redactDeep(node) as Record<string, unknown>;
    expect(out.self).toBe(out);
    expect(out.a).toBe(out.b);
    expect(out.a).toEqual({ cvv: REDACTED });
    expect(out.pan).toBe(mask('4242'));
  });
});

function gatewayEvent(): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /v1/payments',
    rawPath: '/v1/payments',
    rawQueryString: 'expand=customer',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature',
      'idempotency-key': 'idem-7f3a',
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'POST', path: '/v1/payments', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'curl/8' },
      requestId: 'req-1',
      routeKey: 'POST /v1/payments',
      stage: '$default',
      time: '15/Jan/2026:10:30:45 +0000',
      timeEpoch: 1768473045000,
    },
    body: JSON.stringify({
      amount: 1500,
      currency: 'BRL',
      payer: { name: 'Ana', document: '52998224725' },
      card: { number: '4242424242424242', cvv: '837', expiry: '12/2027' },
    }),
    isBase64Encoded: false,
  };
}
const SECRETS = ['4242424242424242', '"837"', '52998224725', 'sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'eyJhbGciOiJIUzI1NiJ9'];

describe('API Gateway v2 event', () => {
  it('JSON.stringify(event, redactReplacer) drops the secrets and keeps the useful fields', () => {
    const json = JSON.stringify({ event: gatewayEvent() }, redactReplacer);
    for (const secret of SECRETS) expect(json).not.toContain(secret);
    expect(json).not.toMatch(/cvv\\?":\\?"\d/);
    const { event } = JSON.parse(json) as { event: APIGatewayProxyEventV2 };
    expect(event.headers['x-api-key']).toBe(REDACTED);
    expect(event.headers.authorization).toBe(REDACTED);
    expect(event.headers['idempotency-key']).toBe('idem-7f3a');
    expect(event.rawPath).toBe('/v1/payments');
    expect(event.requestContext.timeEpoch).toBe(1768473045000);
    expect(JSON.parse(event.body ?? '')).toEqual({
      amount: 1500,
      currency: 'BRL',
      payer: { name: 'Ana', document: '***725' },
      card: { number: mask('4242'), cvv: REDACTED, expiry: '12/2027' },
    });
  });

  it('a real Powertools Logger with jsonReplacerFn writes no secrets', () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      // logLevel in the constructor beats POWERTOOLS_LOG_LEVEL=SILENT from test/support/env.ts.
      const logger = new Logger({ serviceName: 'x', logLevel: 'INFO', jsonReplacerFn: redactReplacer });
      logger.info('req', { event: gatewayEvent() });
      logger.info('charging card 4000000000003220 with Bearer abc.def');
    } finally {
      spy.mockRestore();
    }
    const output = written.join('');
    expect(written).toHaveLength(2);
    for (const secret of [...SECRETS, '4000000000003220', 'abc.def']) expect(output).not.toContain(secret);
    const [first, second] = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ level: 'INFO', message: 'req', service: 'x' });
    const event = first?.event as APIGatewayProxyEventV2;
    expect(event.rawPath).toBe('/v1/payments');
    expect(JSON.parse(event.body ?? '')).toMatchObject({ amount: 1500, currency: 'BRL', card: { cvv: REDACTED } });
    expect(second?.message).toBe(`charging card ${mask('3220')} with Bearer ****`);
  });
});
