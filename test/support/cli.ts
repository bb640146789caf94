/** The ops CLI in-process (bin/cli/run.ts), as a test calls it: its exit code and what it printed. */
import { runCli } from '../../bin/cli/run';

export async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
