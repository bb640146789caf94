/** zod schemas of the discovery endpoints' inputs (SPEC.md 4.3). */
import * as z from '../zod';
import { COUNTRY_CODES, CURRENCY_CODES } from '../geo';
import { FILTERABLE_PAYMENT_TYPES } from './payment-methods';

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: () => `must be one of ${values.join(', ')} (${what})` });

export const listMethodsQuery = z.object({
  country: z.optional(oneOf(COUNTRY_CODES, 'ISO 3166-1 alpha-3')),
  currency: z.optional(oneOf(CURRENCY_CODES, 'ISO 4217')),
  payment_type: z.optional(oneOf(FILTERABLE_PAYMENT_TYPES, 'payment type')),
});

/**
 * A method code as the catalogs spell them: `svc-mt-` and digits. Only a code of another form is 400; a
 * well-formed code the catalog does not hold is the route's 404 (discovery) or METHOD_NOT_AVAILABLE (payouts).
 */
export const methodCodeSchema = z.string().check(z.maxLength(40), z.regex(/^svc-mt-\d+$/, 'must look like svc-mt-<digits>'));

export const getMethodPath = z.object({ method_code: methodCodeSchema });

export const getMethodQuery = z.object({
  country: z.optional(oneOf(COUNTRY_CODES, 'ISO 3166-1 alpha-3')),
});
