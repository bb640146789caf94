/**
 * Where a CLI command writes: its output lines and its error lines (the terminal in bin/cli.ts, an array in the
 * tests). Its own module, below bin/cli/run.ts and the subcommands it dispatches, so they import it without
 * importing the dispatcher back (issue 40).
 */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}
