/** Countries, currencies and their minor units (SPEC.md section 1, DESIGN.md section 3). */
export const COUNTRY_CODES = ['BRA', 'PER', 'COL', 'CHL', 'MEX', 'ECU', 'ARG'] as const;
export type CountryCode = (typeof COUNTRY_CODES)[number];

/** Currencies an amount can be in (SPEC.md 2.1), plus USDT for discovery filters (SPEC.md 4.3). */
export const CURRENCY_CODES = ['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS', 'USDT'] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];

export interface CountryInfo {
  readonly name: string;
  readonly currency: CurrencyCode;
}

export const COUNTRIES: Readonly<Record<CountryCode, CountryInfo>> = {
  BRA: { name: 'Brazil', currency: 'BRL' },
  PER: { name: 'Peru', currency: 'PEN' },
  COL: { name: 'Colombia', currency: 'COP' },
  CHL: { name: 'Chile', currency: 'CLP' },
  MEX: { name: 'Mexico', currency: 'MXN' },
  ECU: { name: 'Ecuador', currency: 'USD' },
  ARG: { name: 'Argentina', currency: 'ARS' },
};

/** Decimal places of each currency's minor unit. */
export const CURRENCY_DECIMALS: Readonly<Record<CurrencyCode, number>> = {
  BRL: 2,
  PEN: 2,
  COP: 2,
  CLP: 0,
  MXN: 2,
  USD: 2,
  ARS: 2,
  USDT: 2,
};

export const isCountryCode = (v: string): v is CountryCode => (COUNTRY_CODES as readonly string[]).includes(v);

/** Brazil's 27 federative units (the boleto payer's state). */
export const BR_STATES = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
] as const;
