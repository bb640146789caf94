/** `npm run cli -- ...`: see bin/cli/run.ts for the commands. */
// Powertools reads this when its metrics are created, so before the service's modules load: an operator's
// terminal is no place for EMF lines (the provider commands call the same clients the functions do).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
const { runCli } = await import('./cli/run');

const code = await runCli(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) });
process.exit(code);
export {};
