/** Locale formatting shared by the server render and the page script: money, dates, countdowns. */
import { CURRENCY_DECIMALS, type CurrencyCode } from '../../../domain/geo';

export function formatMoney(tag: string, minor: number, currency: CurrencyCode): string {
  const digits = CURRENCY_DECIMALS[currency];
  return new Intl.NumberFormat(tag, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    minor / 10 ** digits,
  );
}

/** A calendar day (YYYY-MM-DD, e.g. a boleto due date) as the locale writes it, whatever the viewer's time zone. */
export function formatDay(tag: string, day: string): string {
  return new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
}

/** An instant in the viewer's time zone (client) or UTC (server). */
export function formatInstant(tag: string, iso: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short', ...(timeZone ? { timeZone } : {}) }).format(new Date(iso));
}

/** Time left as m:ss, or h:mm:ss from an hour, with the locale's digits. */
export function formatCountdown(tag: string, ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = new Intl.NumberFormat(tag, { minimumIntegerDigits: 2, useGrouping: false });
  const one = new Intl.NumberFormat(tag, { useGrouping: false });
  return h > 0 ? `${one.format(h)}:${two.format(m)}:${two.format(s)}` : `${one.format(m)}:${two.format(s)}`;
}
