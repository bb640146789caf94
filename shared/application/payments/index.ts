/** A payment's lifecycle: its first write, transitions, completion, expiry, and its session's end. */
export * from './payments';
export * from './record-payment';
export * from './sessions';
