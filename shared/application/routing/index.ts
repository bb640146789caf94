/** Routing between providers and failover (DESIGN.md 9.2): the plan of one payment's attempts and the breakers. */
export * from './attempt-plan';
export * from './breaker';
export * from './failover';
export * from './attempt-stats';
export * from './approval-watch';
