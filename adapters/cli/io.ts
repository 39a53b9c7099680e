/** Where a command writes and what it reads from its surroundings; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** True when stderr is a terminal (progress bars redraw in place; otherwise they print lines). */
  interactive: boolean;
  /**
   * Resolves when the user asks to stop (Ctrl-C, SIGTERM); `serve` waits on it. Listening is
   * started by the call, so other commands keep Node's default (Ctrl-C ends the process).
   */
  waitForStop?: () => Promise<void>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  interactive: process.stderr.isTTY === true,
  waitForStop: () =>
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
};

/** A usage mistake: printed with the command's help, exit code 2. */
export class UsageError extends Error {}
