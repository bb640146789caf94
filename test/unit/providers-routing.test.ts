/**
 * Issue 42, first slice: the providers document's `routing` block (DESIGN.md section 9.2), validated at start with
 * each refusal naming its field, and routeFor, the pure choice of the ordered providers to try. Nothing routes
 * payments by it yet.
 */
import { parseProvidersConfig, ProvidersConfigError } from '../../shared/adapters/providers/providers.config';
import { routeFor, ruleProblems, type Routing } from '../../shared/adapters/providers/routing';

const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----';
const SECRET = 'sup3r-s3cret-value';
const pixBlock = (host: string, key: string) => ({
  base_url: `https://${host}/v2`,
  token_url: `https://${host}/oauth/token`,
  client_id: 'id',
  client_secret: SECRET,
  certificate_pem: PEM_CERT,
  private_key_pem: PEM_KEY,
  pix_key: key,
  webhook_token: 'w'.repeat(40),
});
const blocks = {
  adyen: { base_url: 'https://checkout-test.adyen.com/v71', api_key: SECRET, merchant_account: 'LatamECOM', hmac_key_hex: 'ab'.repeat(32) },
  dlocal: {
    base_url: 'https://sandbox.dlocal.com',
    x_login: 'login',
    x_trans_key: 'trans',
    secret_key: SECRET,
    payouts: { client_id: 'pid', client_secret: SECRET },
  },
  api_pix: pixBlock('psp.example', 'recebe@loja.com'),
  efi: pixBlock('pix.api.efipay.com.br', 'paga@loja.com'),
  stp: {
    base_url: 'https://demo.stpmex.com:7024/speiws/rest',
    empresa: 'LOJA',
    cuenta_ordenante: '646180110400000007',
    private_key_pem: PEM_KEY,
    webhook_token: 's'.repeat(40),
  },
  binance_pay: { base_url: 'https://bpay.binanceapi.com', api_key: 'key', secret_key: SECRET },
};

/** The problems a document is refused with (exact strings), or [] when it parses. */
function problemsOf(doc: unknown): readonly string[] {
  try {
    parseProvidersConfig(doc, 'providers.json');
    return [];
  } catch (e) {
    if (!(e instanceof ProvidersConfigError)) throw e;
    return e.problems;
  }
}
const withRouting = (routing: unknown, over: Record<string, unknown> = {}) => ({ ...blocks, ...over, routing });
const rule = (providers: string[], split?: number[]) => (split ? { providers, split } : { providers });

describe('the providers document: routing', () => {
  it('without routing nothing changes: the document parses as before, with no routing key', () => {
    const parsed = parseProvidersConfig(blocks, 'f');
    expect(parsed).toEqual(blocks);
    expect('routing' in parsed).toBe(false);
    expect(parseProvidersConfig({}, 'f')).toEqual({});
  });

  it('a valid routing block parses as given', () => {
    const routing = {
      card: { BRA: rule(['adyen', 'dlocal'], [80, 20]), '*': rule(['dlocal', 'adyen']), MEX: rule(['adyen']) },
      pix: { BRA: rule(['efi', 'api_pix', 'dlocal'], [0, 100, 0]) },
      pix_payout: { '*': rule(['dlocal', 'efi'], [50, 50]) },
    };
    expect(parseProvidersConfig(withRouting(routing), 'f').routing).toEqual(routing);
    expect(parseProvidersConfig(withRouting({}), 'f').routing).toEqual({});
    expect(parseProvidersConfig(withRouting({ card: {} }), 'f').routing).toEqual({ card: {} });
    // Only the providers a rule names must be configured.
    expect(problemsOf({ adyen: blocks.adyen, routing: { card: { '*': rule(['adyen']) } } })).toEqual([]);
  });

  it.each(['boleto', 'cash', 'spei', 'spei_payout', 'bank_transfer', 'bank_payout', 'wallet', 'crypto', 'Card', 'pix-payout'])(
    'refuses the kind %s',
    (kind) => {
      expect(problemsOf(withRouting({ [kind]: { '*': rule(['dlocal']) } }))).toEqual([
        `routing.${kind} is not a kind routing serves (card, pix, pix_payout)`,
      ]);
    },
  );

  it.each(['BR', 'bra', 'USA', '', '**', 'all'])('refuses the country key "%s"', (country) => {
    expect(problemsOf(withRouting({ card: { [country]: rule(['adyen']) } }))).toEqual([
      `routing.card.${country} must be * or a country code (BRA, PER, COL, CHL, MEX, ECU, ARG)`,
    ]);
  });

  it.each<[string, unknown, Record<string, unknown>, string[]]>([
    ['an empty providers list', { card: { BRA: rule([]) } }, {}, ['routing.card.BRA.providers must list at least one provider']],
    ['a provider listed twice', { card: { BRA: rule(['adyen', 'dlocal', 'adyen']) } }, {}, ['routing.card.BRA.providers.2 repeats adyen']],
    [
      'a provider the document does not configure',
      { card: { BRA: rule(['adyen', 'dlocal']) } },
      { dlocal: undefined },
      ['routing.card.BRA.providers.1 is dlocal, which this document does not configure'],
    ],
    [
      'a provider that cannot serve cards',
      { card: { BRA: rule(['adyen', 'stp']) } },
      {},
      ['routing.card.BRA.providers.1 is stp, which cannot serve card (only adyen, dlocal)'],
    ],
    [
      'a provider that cannot serve PIX pay-ins',
      { pix: { '*': rule(['adyen', 'binance_pay']) } },
      {},
      [
        'routing.pix.*.providers.0 is adyen, which cannot serve pix (only api_pix, efi, dlocal)',
        'routing.pix.*.providers.1 is binance_pay, which cannot serve pix (only api_pix, efi, dlocal)',
      ],
    ],
    [
      'a provider that cannot serve PIX payouts',
      { pix_payout: { BRA: rule(['efi', 'api_pix']) } },
      {},
      ['routing.pix_payout.BRA.providers.1 is api_pix, which cannot serve pix_payout (only efi, dlocal)'],
    ],
    [
      'dLocal for PIX payouts without its payouts credentials',
      { pix_payout: { BRA: rule(['efi', 'dlocal']) } },
      { dlocal: { ...blocks.dlocal, payouts: undefined } },
      ['routing.pix_payout.BRA.providers.1 is dlocal, which cannot serve pix_payout without dlocal.payouts'],
    ],
    [
      'a name that is no provider block',
      { card: { BRA: rule(['adyen', 'paypal']) } },
      {},
      ['routing.card.BRA.providers.1 must be a provider block name (adyen, dlocal, api_pix, efi, stp, binance_pay)'],
    ],
    [
      'a split longer than the providers',
      { card: { BRA: rule(['adyen', 'dlocal'], [50, 25, 25]) } },
      {},
      ['routing.card.BRA.split must have one entry per provider (2), not 3'],
    ],
    [
      'a split shorter than the providers',
      { pix: { BRA: rule(['api_pix', 'efi', 'dlocal'], [100]) } },
      {},
      ['routing.pix.BRA.split must have one entry per provider (3), not 1'],
    ],
    [
      'a split that does not sum to 100',
      { card: { BRA: rule(['adyen', 'dlocal'], [80, 30]) } },
      {},
      ['routing.card.BRA.split must sum to 100'],
    ],
    [
      'an empty split',
      { card: { BRA: rule(['adyen'], []) } },
      {},
      ['routing.card.BRA.split must have one entry per provider (1), not 0', 'routing.card.BRA.split must sum to 100'],
    ],
    [
      'a negative split entry (even summing to 100)',
      { card: { BRA: rule(['adyen', 'dlocal'], [101, -1]) } },
      {},
      ['routing.card.BRA.split.1 must be a whole number, 0 or more'],
    ],
    [
      'fractional split entries (even summing to 100)',
      { card: { BRA: rule(['adyen', 'dlocal'], [50.5, 49.5]) } },
      {},
      ['routing.card.BRA.split.0 must be a whole number, 0 or more', 'routing.card.BRA.split.1 must be a whole number, 0 or more'],
    ],
    [
      'a rule missing its providers',
      { card: { BRA: { split: [100] } } },
      {},
      ['routing.card.BRA.providers Invalid input: expected array, received undefined'],
    ],
    [
      'a rule with a field of another name',
      { card: { BRA: { providers: ['adyen'], weights: [100] } } },
      {},
      ['routing.card.BRA Unrecognized key: "weights"'],
    ],
    ['a kind that is not an object', { card: ['adyen'] }, {}, ['routing.card Invalid input: expected record, received array']],
  ])('refuses %s, naming the field', (_name, routing, over, expected) => {
    expect(problemsOf(withRouting(routing, over))).toEqual(expected);
  });

  it('reports every problem at once, in the message of ProvidersConfigError', () => {
    const doc = withRouting(
      {
        card: { BRA: rule(['adyen', 'adyen'], [60, 60]), XX: rule(['adyen']) },
        boleto: { '*': rule(['adyen']) },
        pix: { '*': rule(['api_pix', 'efi'], [50, 50]) },
      },
      { efi: undefined },
    );
    let message = '';
    try {
      parseProvidersConfig(doc, 'providers.json');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(
      'The providers configuration (providers.json) is not valid: ' +
        'routing.card.BRA.providers.1 repeats adyen; routing.card.BRA.split must sum to 100; ' +
        'routing.card.XX must be * or a country code (BRA, PER, COL, CHL, MEX, ECU, ARG); ' +
        'routing.boleto is not a kind routing serves (card, pix, pix_payout); ' +
        'routing.pix.*.providers.1 is efi, which this document does not configure',
    );
  });

  it('comes with the other cross checks, and never echoes a value', () => {
    const clash = { ...blocks, efi: { ...blocks.efi, base_url: blocks.api_pix.base_url, pix_key: blocks.api_pix.pix_key } };
    const problems = problemsOf({ ...clash, routing: { card: { BRA: rule(['adyen', SECRET]) } } });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^efi\.pix_key must not be api_pix\.pix_key/);
    expect(problems[1]).toBe('routing.card.BRA.providers.1 must be a provider block name (adyen, dlocal, api_pix, efi, stp, binance_pay)');
    expect(problems.join(' ')).not.toContain(SECRET);
  });

  it('ruleProblems checks a rule alone (a merchant override), the document not consulted', () => {
    expect(ruleProblems('override', 'card', rule(['dlocal', 'adyen'], [50, 50]))).toEqual([]);
    expect(ruleProblems('override', 'card', rule(['dlocal', 'dlocal'], [50, 49]))).toEqual([
      'override.providers.1 repeats dlocal',
      'override.split must sum to 100',
    ]);
  });
});

describe('routeFor', () => {
  const never = () => {
    throw new Error('random() called without a split');
  };
  const routing: Routing = {
    card: { BRA: rule(['adyen', 'dlocal'], [80, 20]), '*': rule(['dlocal', 'adyen']) },
    pix: { BRA: rule(['api_pix', 'efi', 'dlocal'], [50, 30, 20]) },
    pix_payout: { MEX: rule(['dlocal']) },
  };

  it('null when no rule applies: no routing, no rule for the kind, none for the country and no *', () => {
    expect(routeFor(undefined, 'card', 'BRA', { random: never })).toBeNull();
    expect(routeFor({}, 'card', 'BRA', { random: never })).toBeNull();
    expect(routeFor({ pix: routing.pix }, 'card', 'BRA', { random: never })).toBeNull();
    expect(routeFor(routing, 'pix', 'PER', { random: never })).toBeNull();
    expect(routeFor(routing, 'pix_payout', 'BRA', { random: never })).toBeNull();
  });

  it('the country rule wins over *, which serves the other countries; the merchant override wins over both', () => {
    expect(routeFor(routing, 'card', 'BRA', { random: () => 0 })).toEqual(['adyen', 'dlocal']);
    expect(routeFor(routing, 'card', 'PER', { random: never })).toEqual(['dlocal', 'adyen']);
    expect(routeFor(routing, 'pix_payout', 'MEX', { random: never })).toEqual(['dlocal']);
    const merchant = rule(['dlocal', 'adyen']);
    expect(routeFor(routing, 'card', 'BRA', { merchant, random: never })).toEqual(['dlocal', 'adyen']);
    expect(routeFor(routing, 'card', 'PER', { merchant: rule(['adyen']), random: never })).toEqual(['adyen']);
    expect(routeFor(undefined, 'pix', 'BRA', { merchant: rule(['efi', 'api_pix'], [0, 100]), random: () => 0 })).toEqual([
      'api_pix',
      'efi',
    ]);
    // An override that lists no provider does not apply.
    expect(routeFor(routing, 'card', 'PER', { merchant: rule([]), random: never })).toEqual(['dlocal', 'adyen']);
  });

  it('with a split, the first provider is drawn by weight at the exact boundaries; the others follow in order', () => {
    const card = (r: number) => routeFor(routing, 'card', 'BRA', { random: () => r });
    expect(card(0)).toEqual(['adyen', 'dlocal']);
    expect(card(0.7999999)).toEqual(['adyen', 'dlocal']);
    expect(card(0.8)).toEqual(['dlocal', 'adyen']);
    expect(card(1 - Number.EPSILON / 2)).toEqual(['dlocal', 'adyen']);
    const pix = (r: number) => routeFor(routing, 'pix', 'BRA', { random: () => r });
    expect(pix(0.49)).toEqual(['api_pix', 'efi', 'dlocal']);
    expect(pix(0.5)).toEqual(['efi', 'api_pix', 'dlocal']);
    expect(pix(0.79)).toEqual(['efi', 'api_pix', 'dlocal']);
    expect(pix(0.8)).toEqual(['dlocal', 'api_pix', 'efi']);
  });

  it('100 evenly spaced draws put each provider first exactly its split of times; a weight of 0 is never first', () => {
    const firsts = (r: Routing) => {
      const count: Record<string, number> = {};
      for (let i = 0; i < 100; i++) {
        const first = routeFor(r, 'pix', 'BRA', { random: () => i / 100 })![0]!;
        count[first] = (count[first] ?? 0) + 1;
      }
      return count;
    };
    expect(firsts(routing)).toEqual({ api_pix: 50, efi: 30, dlocal: 20 });
    expect(firsts({ pix: { BRA: rule(['api_pix', 'efi', 'dlocal'], [0, 100, 0]) } })).toEqual({ efi: 100 });
    expect(firsts({ pix: { BRA: rule(['api_pix', 'efi', 'dlocal'], [1, 0, 99]) } })).toEqual({ api_pix: 1, dlocal: 99 });
  });

  it('answers a fresh array: changing it leaves the rule as it was', () => {
    const r = routeFor(routing, 'card', 'PER', { random: never })!;
    r.reverse();
    expect(routing.card!['*']!.providers).toEqual(['dlocal', 'adyen']);
  });

  it('reads the routing block as the document parses it', () => {
    const parsed = parseProvidersConfig(withRouting({ card: { '*': rule(['dlocal', 'adyen'], [100, 0]) } }), 'f');
    expect(routeFor(parsed.routing, 'card', 'COL', { random: () => 0.99 })).toEqual(['dlocal', 'adyen']);
  });
});
