/** Money: integer minor units with their currency; the API speaks decimal numbers (DESIGN.md section 3). */
import { CURRENCY_DECIMALS, type CurrencyCode } from './geo';

/** Largest amount accepted, in minor units (well inside Number.MAX_SAFE_INTEGER). */
export const MAX_MINOR = 1_000_000_000_000;

/** Minor units of `amount`, or null when it has more decimals than the currency or is out of range. */
export function toMinor(amount: number, currency: CurrencyCode): number | null {
  if (!Number.isFinite(amount) || amount <= 0) return null;
  const scale = 10 ** CURRENCY_DECIMALS[currency];
  const scaled = amount * scale;
  const minor = Math.round(scaled);
  if (Math.abs(scaled - minor) > 1e-6 * Math.max(1, Math.abs(scaled))) return null;
  if (minor < 1 || minor > MAX_MINOR) return null;
  return minor;
}

export function fromMinor(minor: number, currency: CurrencyCode): number {
  return minor / 10 ** CURRENCY_DECIMALS[currency];
}

/** Fixed-decimal text of an amount (BR Code, boleto, receipts). */
export function formatMinor(minor: number, currency: CurrencyCode): string {
  return fromMinor(minor, currency).toFixed(CURRENCY_DECIMALS[currency]);
}
