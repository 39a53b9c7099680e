import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './browser.js';

export interface ServeProcess {
  /** What `ragdesk serve` printed first: the console's URL. */
  consoleUrl: string;
  origin: string;
  /** The admin key printed on the first start. */
  key: string;
  /** Everything printed on stdout so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `node dist/adapters/cli/main.js serve --port 0 ...` as a child process, as `npm start` runs it. */
export async function startServe(args: string[], env: Record<string, string>): Promise<ServeProcess> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'dist/adapters/cli/main.js'), 'serve', '--port', '0', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!/keep it: rdk_\S+/.test(stdout) || !stdout.includes('listening on')) {
    if (child.exitCode !== null) throw new Error(`ragdesk serve exited (${child.exitCode}): ${stderr}`);
    if (Date.now() > deadline) throw new Error(`ragdesk serve did not start: ${stdout}\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const consoleUrl = /^Open the console: (\S+)$/m.exec(stdout)?.[1] ?? '';
  return {
    consoleUrl,
    origin: new URL(consoleUrl || 'http://invalid/').origin,
    key: /keep it: (rdk_\S+)/.exec(stdout)?.[1] ?? '',
    output: () => stdout,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
