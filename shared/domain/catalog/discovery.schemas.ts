/** zod schemas of the discovery endpoints' inputs (SPEC.md 4.3). */
import * as z from 'zod';
import { COUNTRY_CODES, CURRENCY_CODES } from '../geo';
import { FILTERABLE_PAYMENT_TYPES } from './payment-methods';

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: () => `must be one of ${values.join(', ')} (${what})` });

export const listMethodsQuery = z.object({
  country: oneOf(COUNTRY_CODES, 'ISO 3166-1 alpha-3').optional(),
  currency: oneOf(CURRENCY_CODES, 'ISO 4217').optional(),
  payment_type: oneOf(FILTERABLE_PAYMENT_TYPES, 'payment type').optional(),
});

/**
 * A method code as the catalogs spell them: `svc-mt-` and digits. Only a code of another form is 400; a
 * well-formed code the catalog does not hold is the route's 404 (discovery) or METHOD_NOT_AVAILABLE (payouts).
 */
export const methodCodeSchema = z
  .string()
  .max(40)
  .regex(/^svc-mt-\d+$/, 'must look like svc-mt-<digits>');

export const getMethodPath = z.object({ method_code: methodCodeSchema });

export const getMethodQuery = z.object({
  country: oneOf(COUNTRY_CODES, 'ISO 3166-1 alpha-3').optional(),
});
