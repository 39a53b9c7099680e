/**
 * The benchmark servers run in a child process of their own (so their memory and stalls are theirs
 * alone): started here, they print one JSON line once listening (`{ "origin", ... }`), then lines
 * `{ "stallMs", "stallCpuMs" }` (stall-reports.ts). Shared by bench:hostile and
 * bench:hostile-visitors, with the /proc readings and the JSON request both make.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ServerProcess<Hello> {
  origin: string;
  pid: number;
  /** The server's first line, parsed (its origin and whatever else it announces). */
  hello: Hello;
  child: ChildProcess;
  alive: () => boolean;
  /** The worst stall reported since the last call. */
  takeStall: () => { stallMs: number; stallCpuMs: number };
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop: () => Promise<void>;
}

export async function startServerProcess<Hello extends { origin: string }>(
  script: string,
  args: readonly string[],
  options: { nodeArgs?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<ServerProcess<Hello>> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => void (stderr = (stderr + data.toString()).slice(-4000)));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${stderr}`)));
  });
  let stall = { stallMs: 0, stallCpuMs: 0 };
  lines.on('line', (line) => {
    const reported = JSON.parse(line) as { stallMs?: number; stallCpuMs?: number };
    if (reported.stallMs !== undefined && reported.stallMs > stall.stallMs)
      stall = { stallMs: reported.stallMs, stallCpuMs: reported.stallCpuMs ?? 0 };
  });
  const hello = JSON.parse(first) as Hello;
  return {
    origin: hello.origin,
    pid: child.pid!,
    hello,
    child,
    alive: () => !exited,
    takeStall: () => {
      const taken = stall;
      stall = { stallMs: 0, stallCpuMs: 0 };
      return taken;
    },
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(forced);
    },
  };
}

/** Resident set of one process, bytes (0 when it is gone). */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The pid and every descendant's pid. */
function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone between the listing and the read
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i]!) ?? []));
  return found;
}

/** Resident set of a process and all its descendants, bytes. */
export function treeRssOf(root: number): number {
  return treeOf(root).reduce((sum, pid) => sum + rssOf(pid), 0);
}

/** One JSON request to `/api{path}` with an optional Bearer key; a body that is not JSON stays text. */
export async function requestJson(
  origin: string,
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; timeoutMs: number },
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const { key, body } = options;
  const response = await fetch(`${origin}/api${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, json, headers: response.headers };
}
