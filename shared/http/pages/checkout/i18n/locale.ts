/**
 * Which locale a shopper sees: `?locale=`, then Accept-Language (in q order), then the
 * session country's default (pt-BR for BRA, the country's Spanish elsewhere), else English.
 * One catalog per language; the full tag (es-AR, pt-BR, en-US) drives Intl formatting.
 */
import type { CountryCode } from '../../../../domain/geo';
import { en, type Catalog, type MessageKey } from './en';
import { es } from './es';
import { ptBR } from './pt-BR';

export const CATALOGS = { en, 'pt-BR': ptBR, es } as const satisfies Record<string, Catalog>;
export type CatalogId = keyof typeof CATALOGS;

export interface Locale {
  /** BCP 47 tag for <html lang> and Intl (pt-BR, es-MX, es, en). */
  readonly tag: string;
  readonly catalog: CatalogId;
}

/** ISO 3166 alpha-2 region of each country we serve (for es-XX tags). */
const REGION: Readonly<Record<CountryCode, string>> = { BRA: 'BR', MEX: 'MX', ARG: 'AR', COL: 'CO', CHL: 'CL', PER: 'PE', ECU: 'EC' };
const SPANISH_REGIONS = new Set(['MX', 'AR', 'CO', 'CL', 'PE', 'EC', 'UY', 'PY', 'BO', 'VE', 'CR', 'PA', 'GT', 'DO', 'ES', 'US', '419']);

export function countryLocale(country: CountryCode): Locale {
  return country === 'BRA' ? { tag: 'pt-BR', catalog: 'pt-BR' } : { tag: `es-${REGION[country]}`, catalog: 'es' };
}

/** A tag we can serve, or null: pt* → pt-BR; es-XX kept when XX is Spanish-speaking, else the country's Spanish; en*. */
export function matchTag(raw: string, country?: CountryCode): Locale | null {
  const m = /^([a-z]{2,3})(?:[-_]([a-z0-9]{2,3}))?/i.exec(raw.trim());
  if (!m) return null;
  const lang = m[1]!.toLowerCase();
  const region = m[2]?.toUpperCase();
  if (lang === 'pt') return { tag: 'pt-BR', catalog: 'pt-BR' };
  if (lang === 'es') {
    if (region && SPANISH_REGIONS.has(region)) return { tag: `es-${region}`, catalog: 'es' };
    return !country || country === 'BRA' ? { tag: 'es', catalog: 'es' } : countryLocale(country);
  }
  if (lang === 'en') return { tag: region && /^[A-Z]{2}$/.test(region) ? `en-${region}` : 'en', catalog: 'en' };
  return null;
}

/** Accept-Language entries in preference order (q descending, stable), without `*` and q=0. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((e) => e.tag && e.tag !== '*' && e.q > 0 && Number.isFinite(e.q))
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((e) => e.tag);
}

/** Without a country (an unknown session), the fallback is English. */
export function resolveLocale(opts: { query?: string | null; acceptLanguage?: string; country?: CountryCode }): Locale {
  for (const candidate of [opts.query ?? '', ...acceptedLanguages(opts.acceptLanguage)]) {
    const found = candidate ? matchTag(candidate, opts.country) : null;
    if (found) return found;
  }
  return opts.country ? countryLocale(opts.country) : { tag: 'en', catalog: 'en' };
}

export type Translate = (key: MessageKey, vars?: Readonly<Record<string, string | number>>) => string;

/** `{name}` placeholders filled from vars; the message itself when a key has no country variant. */
export function translator(catalog: Catalog): Translate {
  return (key, vars) =>
    vars ? catalog[key].replace(/\{(\w+)\}/g, (all, name: string) => (name in vars ? String(vars[name]) : all)) : catalog[key];
}

/** A key's country variant (e.g. method.cash.desc.MEX) when the catalog has one. */
export function variant(catalog: Catalog, key: MessageKey, country: CountryCode): MessageKey {
  const specific = `${key}.${country}`;
  return specific in catalog ? (specific as MessageKey) : key;
}
