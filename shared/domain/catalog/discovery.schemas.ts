/** zod schemas of the discovery endpoints' inputs (SPEC.md 4.3). */
import { z } from 'zod';
import { COUNTRY_CODES, CURRENCY_CODES } from '../geo';
import { FILTERABLE_PAYMENT_TYPES } from './payment-methods';

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: () => `must be one of ${values.join(', ')} (${what})` });

export const listMethodsQuery = z.object({
  country: oneOf(COUNTRY_CODES, 'ISO 3166-1 alpha-3').optional(),
  currency: oneOf(CURRENCY_CODES, 'ISO 4217').optional(),
  payment_type: oneOf(FILTERABLE_PAYMENT_TYPES, 'payment type').optional(),
});

export const getMethodPath = z.object({
  method_code: z.string().regex(/^svc-mt-\d{1,4}$/, 'must look like svc-mt-<n>'),
});

export const getMethodQuery = z.object({
  country: oneOf(COUNTRY_CODES, 'ISO 3166-1 alpha-3').optional(),
});
