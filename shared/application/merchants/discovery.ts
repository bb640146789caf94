/** Discovery use cases (SPEC.md 4.3): what the authenticated merchant can use. */
import { AppError } from '../../domain/errors';
import type { CountryCode } from '../../domain/geo';
import { findMethod, listMethods, type MethodFilters, type PaymentMethodInfo } from '../../domain/catalog/payment-methods';
import type { Merchant } from '../../domain/merchant';

export function listPaymentMethods(merchant: Merchant, filters: MethodFilters) {
  const methods = listMethods(filters, merchant);
  return { success: true as const, methods, total: methods.length };
}

export function getPaymentMethod(merchant: Merchant, code: string, country?: CountryCode): PaymentMethodInfo {
  const method = findMethod(code, merchant, country);
  if (!method) throw new AppError('PAYMENT_METHOD_NOT_FOUND', `Payment method ${code} not found.`);
  return method;
}
