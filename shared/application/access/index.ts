/** Who calls: API key authentication and rate limits. */
export * from './authenticate';
export * from './rate-limit';
