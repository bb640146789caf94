/**
 * Powertools idempotency record. Powertools writes these items itself (status, data, validation), so they
 * carry its attributes rather than our envelope; only the key format is ours.
 */

/** The hashed key already holds merchant, mode, route and X-Idempotency-Key. */
export const idempotencyRecordKey = (hashedKey: string) => ({ PK: `IDEMPOTENCY#${hashedKey}`, SK: 'IDEMPOTENCY' });
