/**
 * The hosted page's catalogs and locale choice: every locale has every key, placeholders match,
 * Accept-Language and ?locale= win over the country.
 */
import { CATALOGS, acceptedLanguages, resolveLocale, translator, variant } from '../../shared/http/pages/checkout/i18n/locale';
import { formatCountdown, formatDay, formatMoney } from '../../shared/http/pages/checkout/format';
import { COUNTRY_CODES } from '../../shared/domain/geo';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('message catalogs', () => {
  const ids = Object.keys(CATALOGS) as (keyof typeof CATALOGS)[];
  const allKeys = new Set(ids.flatMap((id) => Object.keys(CATALOGS[id])));

  it.each(ids)('%s has every key any other catalog has, and no empty message', (id) => {
    const missing = [...allKeys].filter((k) => !(k in CATALOGS[id]));
    expect(missing).toEqual([]);
    const empty = Object.entries(CATALOGS[id]).filter(([, v]) => !v.trim());
    expect(empty).toEqual([]);
  });

  it.each(ids.filter((id) => id !== 'en'))('%s uses the same {placeholders} as English in every message', (id) => {
    const wrong = Object.entries(CATALOGS.en).filter(
      ([k, v]) => placeholders(v).join() !== placeholders((CATALOGS[id] as Record<string, string>)[k] ?? '').join(),
    );
    expect(wrong.map(([k]) => k)).toEqual([]);
  });

  it('translates with placeholders', () => {
    expect(translator(CATALOGS['pt-BR'])('pay.button', { amount: 'R$ 10,00' })).toBe('Pagar R$ 10,00');
    expect(translator(CATALOGS.es)('card.installments.many', { count: 3, amount: '$ 100' })).toBe('3 cuotas de $ 100 sin interés');
  });

  it('names the cash network the live rail pays through: OXXO in Mexico, Efecty in Colombia, Servipag in Chile', () => {
    const es = translator(CATALOGS.es);
    expect(es(variant(CATALOGS.es, 'result.cash.steps', 'COL'))).toContain('Efecty');
    expect(es(variant(CATALOGS.es, 'method.cash.desc', 'CHL'))).toContain('Servipag');
    expect(es(variant(CATALOGS.es, 'result.cash.steps', 'MEX'))).toContain('OXXO');
    expect(es(variant(CATALOGS.es, 'result.cash.steps', 'PER'))).toBe(CATALOGS.es['result.cash.steps']);
  });

  it("names Colombia's bank transfer Bre-B, Brazil's wallets, and USDT in every catalog", () => {
    for (const id of ids) {
      const t = translator(CATALOGS[id]);
      expect(t(variant(CATALOGS[id], 'method.bank_transfer', 'COL'))).toBe('Bre-B');
      expect(t(variant(CATALOGS[id], 'method.bank_transfer', 'PER'))).toBe(CATALOGS[id]['method.bank_transfer']);
      expect(t(variant(CATALOGS[id], 'method.bank_transfer.desc', 'COL'))).toContain('Bre-B');
      for (const wallet of ['Mercado Pago', 'PicPay', 'NuPay'])
        expect(t(variant(CATALOGS[id], 'method.wallet.desc', 'BRA'))).toContain(wallet);
      expect(t('method.crypto')).toMatch(/^USDT \(/);
      expect(t('pay.button.crypto', { amount: '$ 1' })).toContain('$ 1');
      expect(t('pay.button.crypto', { amount: '$ 1' })).toContain('USDT');
    }
    expect(CATALOGS.en['method.crypto.desc']).toBe('Pay in USDT with Binance Pay: scan the QR or open the payment page.');
  });

  it('names every country document in every catalog', () => {
    for (const id of ids)
      for (const c of COUNTRY_CODES) expect((CATALOGS[id] as Record<string, string>)[`field.document.${c}`]).toBeTruthy();
  });
});

describe('resolveLocale', () => {
  it.each([
    [{ country: 'BRA' }, 'pt-BR', 'pt-BR'],
    [{ country: 'MEX' }, 'es-MX', 'es'],
    [{ country: 'ARG' }, 'es-AR', 'es'],
    [{ country: 'CHL' }, 'es-CL', 'es'],
    [{ country: 'COL' }, 'es-CO', 'es'],
    [{ country: 'PER' }, 'es-PE', 'es'],
    [{ country: 'ECU' }, 'es-EC', 'es'],
    [{ country: 'BRA', acceptLanguage: 'en-US,en;q=0.9' }, 'en-US', 'en'],
    [{ country: 'MEX', acceptLanguage: 'de-DE,de;q=0.9,es;q=0.5' }, 'es-MX', 'es'],
    [{ country: 'ARG', acceptLanguage: 'es-AR' }, 'es-AR', 'es'],
    [{ country: 'BRA', acceptLanguage: 'es-419,es;q=0.8' }, 'es-419', 'es'],
    [{ country: 'MEX', acceptLanguage: 'fr, de;q=0.5' }, 'es-MX', 'es'],
    [{ country: 'MEX', acceptLanguage: 'pt;q=0.3, en;q=0.8' }, 'en', 'en'],
    [{ country: 'MEX', acceptLanguage: 'en;q=0, pt-PT' }, 'pt-BR', 'pt-BR'],
    [{ country: 'BRA', acceptLanguage: 'en-US', query: 'pt-BR' }, 'pt-BR', 'pt-BR'],
    [{ country: 'BRA', acceptLanguage: 'pt-BR', query: 'es' }, 'es', 'es'],
    [{ country: 'COL', query: 'es' }, 'es-CO', 'es'],
    [{ country: 'COL', query: 'xx-<script>' }, 'es-CO', 'es'],
    [{}, 'en', 'en'],
  ] as const)('%j → %s (%s catalog)', (opts, tag, catalog) => {
    expect(resolveLocale(opts)).toEqual({ tag, catalog });
  });

  it('orders Accept-Language by q, keeping header order on ties, and drops * and q=0', () => {
    expect(acceptedLanguages('en;q=0.5, es-MX, pt;q=0.9, *;q=0.1, fr;q=0')).toEqual(['es-MX', 'pt', 'en']);
    expect(acceptedLanguages(undefined)).toEqual([]);
  });
});

describe('formatting', () => {
  // Intl writes a no-break space between symbol and number in some locales.
  const flat = (s: string) => s.replace(/\s/g, ' ');
  it.each([
    ['pt-BR', 10050, 'BRL', 'R$ 100,50'],
    ['es-MX', 25000, 'MXN', '$250.00'],
    ['es-AR', 123456, 'ARS', '$ 1.234,56'],
    ['es-CL', 15000, 'CLP', '$15.000'],
    ['en', 10050, 'BRL', 'R$100.50'],
  ] as const)('%s %d %s → %s', (tag, minor, currency, text) => {
    expect(flat(formatMoney(tag, minor, currency))).toBe(text);
  });

  it('writes a due date as the locale does, in no time zone but its own', () => {
    expect(formatDay('pt-BR', '2026-11-25')).toBe('25 de novembro de 2026');
    expect(formatDay('es-MX', '2026-01-01')).toBe('1 de enero de 2026');
  });

  it('counts down as m:ss or h:mm:ss', () => {
    expect(formatCountdown('pt-BR', 29 * 60_000 + 5_000)).toBe('29:05');
    expect(formatCountdown('es', 3_600_000 + 61_000)).toBe('1:01:01');
    expect(formatCountdown('en', -5)).toBe('0:00');
  });
});
