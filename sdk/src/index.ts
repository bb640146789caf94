/** @latam-payments/node: the merchant library for the LatAm payments API. */
export { LatamPayments, type LatamPaymentsOptions, type Mode } from './client.ts';
export { VERSION, type RequestOptions, type ResponseInfo, type WithResponse } from './http.ts';
export { ListPromise } from './pagination.ts';
export * as webhooks from './webhooks.ts';
export type { VerifyOptions, WebhookHeaders, RawBody } from './webhooks.ts';
export {
  APIError,
  AuthenticationError,
  CardError,
  ConnectionError,
  IdempotencyError,
  LatamPaymentsError,
  NotFoundError,
  PermissionError,
  ProviderUnavailableError,
  RateLimitError,
  SignatureVerificationError,
  TimeoutError,
  ValidationError,
  type FieldError,
} from './errors.ts';
export type * from './types.ts';
