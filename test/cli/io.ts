import type { CliIo } from '../../adapters/cli/io.js';

/** A CLI io that records what commands print; no OPENAI_API_KEY, so everything runs offline. */
export function recordingIo(env: Record<string, string | undefined> = {}): CliIo & { out: string[]; err: string[]; text(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    env,
    interactive: false,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    text: () => out.join(''),
  };
}
