/** `npm run cli -- ...`: see bin/cli/run.ts for the commands. */
import { runCli } from './cli/run';

const code = await runCli(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) });
process.exit(code);
