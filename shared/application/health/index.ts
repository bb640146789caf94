/** The health report. */
export * from './health';
