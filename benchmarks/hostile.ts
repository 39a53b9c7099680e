/**
 * bench:hostile — big and hostile input against a running server. Each case (benchmarks/lib/
 * hostile-cases.ts: a 49 MB text, CSVs with a million-column header or 100,000 columns, 1,000,000
 * JSON keys, a PDF deflate bomb, ZWJ emoji, a crawl of pages with 220,000 links, zip bombs, a huge
 * XML part, a 50,000-page PDF) is sent to the server of benchmarks/lib/hostile-server.ts (what
 * `ragdesk serve` runs, with 127.0.0.1 crawlable) while a probe queries another datastore every
 * 200 ms. Per case: final status, time to it, server RSS peak from /proc (the server alone, and with
 * its parser processes), the longest probe latency and its p99. Goals (2-core machine): stall <=
 * 200 ms, p99 <= 100 ms, RSS growth <= 512 MiB over the idle server, every case settled within
 * 120 s, and the server alive throughout.
 *
 *   npm run bench:hostile -- [--scale 1] [--cases text,pdf] [--timeout-s 120] [--server-dist <dist>] [--result hostile]
 *
 * `--server-dist` runs the server from another build (an older commit's `dist/`, with this
 * benchmark's compiled hostile-server.js copied into its benchmarks/lib), for before/after figures
 * from one machine. The CI test (test/security/hostile-bench.test.ts) runs every case at a small
 * scale with the limits scaled alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostileCases, type HostileCase, type HostileInput } from './lib/hostile-cases.js';
import { patternCases } from './lib/hostile-pattern-cases.js';
import { requestJson, rssOf, startServerProcess, treeRssOf, type ServerProcess } from './lib/server-process.js';
import { flags, percentile, printTable, writeResult } from './lib/report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const API_KEY = 'hostile-bench-key-0123456789abcdef';
const PROBE_MS = 200;
const MIB = 1024 * 1024;

export interface HostileOptions {
  scale: number;
  /** Case names (substring match, case-insensitive); default all. */
  cases?: string[];
  timeoutMs?: number;
  /** A `dist/` folder to run the server from (default: this build). */
  serverDist?: string;
  /** Limits passed to the server (the CI test scales them with the inputs). */
  usage?: Record<string, number>;
  files?: Record<string, number>;
  log?: (line: string) => void;
}

export interface HostileRow {
  case: string;
  status: string;
  seconds: number;
  error: string;
  chunks: number;
  /** RSS of the server process above its idle RSS, MiB (peak during the case). */
  rssGrowthMiB: number;
  /** Same, server plus its child processes (parsers). */
  treeGrowthMiB: number;
  probeMaxMs: number;
  probeP99Ms: number;
  /** The server's longest event-loop gap during the case, and the CPU it used in that gap. */
  serverStallMs: number;
  serverStallCpuMs: number;
  probes: number;
  serverDied: boolean;
}

export interface HostileResult {
  scale: number;
  idleRssMiB: number;
  idleProbe: { maxMs: number; p99Ms: number };
  rows: HostileRow[];
}

type RunningServer = ServerProcess<{ origin: string }>;

function startServer(options: HostileOptions, dataDir: string): Promise<RunningServer> {
  // From dist/benchmarks the build is one folder up; from the TypeScript sources (the CI test) it is dist/.
  const dist = options.serverDist ?? (HERE.includes(`${sep}dist${sep}`) ? join(HERE, '..') : join(HERE, '..', 'dist'));
  const script = join(dist, 'benchmarks', 'lib', 'hostile-server.js');
  // RAGDESK_HOSTILE_NODE_ARGS passes flags to the server's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
  const nodeArgs = (process.env.RAGDESK_HOSTILE_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  return startServerProcess(script, [dataDir, API_KEY, JSON.stringify(options.usage ?? {}), JSON.stringify(options.files ?? {})], {
    nodeArgs,
  });
}

/**
 * One request; retried once when the connection fails before an answer: fetch reuses a keep-alive
 * socket that the server may close at that very moment (its keep-alive timeout), and a POST is not
 * retried by fetch itself. The server never saw such a request.
 */
async function api(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  options: { anonymous?: boolean } = {},
): Promise<{ status: number; json: unknown }> {
  try {
    return await apiOnce(origin, method, path, body, options);
  } catch (error) {
    const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
    if (code !== 'EPIPE' && code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') throw error;
    return apiOnce(origin, method, path, body, options);
  }
}

async function apiOnce(
  origin: string,
  method: string,
  path: string,
  body: unknown,
  options: { anonymous?: boolean },
): Promise<{ status: number; json: unknown }> {
  const { status, json } = await requestJson(origin, method, path, { key: options.anonymous ? null : API_KEY, body, timeoutMs: 180_000 });
  return { status, json };
}

/** Queries every 200 ms, each on its own schedule, so one stalled answer does not hide the next ones. */
function startProbe(origin: string, datastoreId: string): { samples: number[]; stop(): Promise<void> } {
  const samples: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const started = performance.now();
    const probe = api(origin, 'POST', `/datastores/${datastoreId}/query`, { query: 'retrieval ranks vectors', topK: 3 })
      .then(
        () => void samples.push(performance.now() - started),
        () => void samples.push(performance.now() - started),
      )
      .finally(() => inFlight.delete(probe));
    inFlight.add(probe);
  }, PROBE_MS);
  return {
    samples,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

/** A site whose every page links to `linksPerPage` other pages of it. */
async function startLinkSite(linksPerPage: number): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') return void response.writeHead(404).end();
    const seed = Number(path.replace(/\D/g, '')) || 0;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.write(`<html><head><title>Page ${seed}</title></head><body><main><p>Page ${seed} about retrieval.</p>`);
    const batch: string[] = [];
    for (let i = 0; i < linksPerPage; i++) {
      batch.push(`<a href="/p/${seed * linksPerPage + i + 1}">l</a>`);
      if (batch.length === 5_000) response.write(batch.splice(0).join(''));
    }
    response.end(`${batch.join('')}</main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Submitted {
  datasourceId?: string;
  /** Set when the request itself was the whole case (an upsert). */
  settled?: { status: string; error: string; chunks: number };
}

async function submit(origin: string, datastoreId: string, input: HostileInput): Promise<Submitted> {
  if (input.kind === 'upsert') {
    const { status, json } = await api(origin, 'POST', `/datastores/upsert/${datastoreId}`, { documents: [{ text: input.text }] });
    const error = status >= 400 ? JSON.stringify(json).slice(0, 160) : '';
    return { settled: { status: status < 400 ? 'synched' : `http ${status}`, error, chunks: 0 } };
  }
  if (input.kind === 'file') {
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('file', new Blob([input.bytes]), input.fileName);
    const { status, json } = await api(origin, 'POST', '/datasources', form);
    if (status >= 400) return { settled: { status: `http ${status}`, error: JSON.stringify(json).slice(0, 160), chunks: 0 } };
    return { datasourceId: (json as { id: string }).id };
  }
  throw new Error('crawl cases are submitted by runCase');
}

async function waitSettled(
  origin: string,
  datasourceId: string,
  deadline: number,
  alive: () => boolean,
): Promise<{ status: string; error: string; chunks: number }> {
  while (performance.now() < deadline && alive()) {
    const { status, json } = await api(origin, 'GET', `/datasources/${datasourceId}`).catch(() => ({ status: 0, json: null }));
    const record = json as { status?: string; error?: string | null; nbChunks?: number } | null;
    if (status === 200 && record?.status && !['pending', 'running'].includes(record.status)) {
      return { status: record.status, error: (record.error ?? '').slice(0, 160), chunks: record.nbChunks ?? 0 };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { status: alive() ? 'timeout' : 'server died', error: '', chunks: 0 };
}

async function runCase(
  server: RunningServer,
  testCase: HostileCase,
  datastoreId: string,
  probeStoreId: string,
  idleRss: { server: number; tree: number },
  timeoutMs: number,
): Promise<HostileRow> {
  const input = testCase.make();
  let rssPeak = 0;
  let treePeak = 0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssOf(server.pid));
    treePeak = Math.max(treePeak, treeRssOf(server.pid));
  }, 100);
  const probe = startProbe(server.origin, probeStoreId);
  server.takeStall();
  const started = performance.now();
  let site: Awaited<ReturnType<typeof startLinkSite>> | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  let outcome: { status: string; error: string; chunks: number };
  let datasourceId: string | undefined;
  try {
    let submitted: Submitted;
    if (input.kind === 'crawl') {
      site = await startLinkSite(input.linksPerPage);
      const { status, json } = await api(server.origin, 'POST', '/datasources', {
        type: 'web_site',
        datastoreId,
        config: { source_url: `${site.origin}/` },
      });
      submitted =
        status >= 400
          ? { settled: { status: `http ${status}`, error: JSON.stringify(json).slice(0, 160), chunks: 0 } }
          : { datasourceId: (json as { id: string }).id };
    } else if (input.kind === 'scripted') {
      const run = await input.run({ origin: server.origin, datastoreId, api: (...args) => api(server.origin, ...args) });
      cleanup = run.close;
      submitted = run;
    } else submitted = await submit(server.origin, datastoreId, input);
    datasourceId = submitted.datasourceId;
    outcome = submitted.settled ?? (await waitSettled(server.origin, datasourceId!, started + timeoutMs, server.alive));
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    outcome = {
      status: server.alive() ? 'request failed' : 'server died',
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a fetch failure's cause is an Error; String gives its name and message
      error: `${String(error)}${cause ? ` (${String(cause)})` : ''}`.slice(0, 200),
      chunks: 0,
    };
  }
  const seconds = (performance.now() - started) / 1000;
  await probe.stop();
  const stall = server.takeStall();
  clearInterval(sampler);
  await site?.close();
  await cleanup?.();
  if (datasourceId && server.alive()) await api(server.origin, 'DELETE', `/datasources/${datasourceId}`).catch(() => undefined);
  const sorted = [...probe.samples].sort((a, b) => a - b);
  return {
    case: testCase.name,
    status: outcome.status,
    seconds: Math.round(seconds * 10) / 10,
    error: outcome.error,
    chunks: outcome.chunks,
    rssGrowthMiB: Math.round((rssPeak - idleRss.server) / MIB),
    treeGrowthMiB: Math.round((treePeak - idleRss.tree) / MIB),
    probeMaxMs: Math.round(sorted.at(-1) ?? 0),
    probeP99Ms: Math.round(percentile(sorted, 99)),
    probes: sorted.length,
    serverStallMs: stall.stallMs,
    serverStallCpuMs: stall.stallCpuMs,
    serverDied: !server.alive(),
  };
}

export async function runHostile(options: HostileOptions): Promise<HostileResult> {
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const selected = [...hostileCases(options.scale), ...patternCases()].filter(
    (testCase) => !options.cases?.length || options.cases.some((name) => testCase.name.toLowerCase().includes(name.toLowerCase())),
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'ragdesk-hostile-'));
  let server = await startServer(options, dataDir);
  try {
    const { json: probeStore } = await api(server.origin, 'POST', '/datastores', { name: 'probe' });
    const probeStoreId = (probeStore as { id: string }).id;
    const { status } = await api(server.origin, 'POST', `/datastores/upsert/${probeStoreId}`, {
      documents: Array.from({ length: 20 }, (_, i) => ({
        text: `Document ${i}: the index stores vectors and retrieval ranks them by similarity.`,
      })),
    });
    if (status >= 400) throw new Error(`could not seed the probe datastore (${status})`);
    const { json: target } = await api(server.origin, 'POST', '/datastores', { name: 'hostile' });
    const datastoreId = (target as { id: string }).id;
    // Idle figures: the probe alone for a few seconds, RSS after it.
    const idle = startProbe(server.origin, probeStoreId);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await idle.stop();
    const idleSorted = [...idle.samples].sort((a, b) => a - b);
    const idleRss = { server: rssOf(server.pid), tree: treeRssOf(server.pid) };
    const rows: HostileRow[] = [];
    for (const testCase of selected) {
      log(`case: ${testCase.name}`);
      const row = await runCase(server, testCase, datastoreId, probeStoreId, idleRss, timeoutMs);
      log(
        `  ${row.status} in ${row.seconds} s, RSS +${row.rssGrowthMiB} MiB, probe max ${row.probeMaxMs} ms, server stall ${row.serverStallMs} ms (CPU ${row.serverStallCpuMs} ms)${row.error ? `, ${row.error}` : ''}`,
      );
      rows.push(row);
      if (!server.alive()) {
        // A dead server is the row's result; the next case gets a fresh one.
        await server.stop();
        server = await startServer(options, dataDir);
        const restarted = await api(server.origin, 'GET', '/datastores').catch(() => null);
        if (!restarted) throw new Error('the server did not come back');
      }
    }
    return {
      scale: options.scale,
      idleRssMiB: Math.round(idleRss.server / MIB),
      idleProbe: { maxMs: Math.round(idleSorted.at(-1) ?? 0), p99Ms: Math.round(percentile(idleSorted, 99)) },
      rows,
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = flags(process.argv.slice(2));
  const scale = Number(args.get('scale') ?? '1');
  const result = await runHostile({
    scale,
    ...(args.get('cases') ? { cases: args.get('cases')!.split(',') } : {}),
    timeoutMs: Number(args.get('timeout-s') ?? '120') * 1000,
    ...(args.get('server-dist') ? { serverDist: args.get('server-dist')! } : {}),
    log: (line) => console.log(line),
  });
  console.log(
    `idle server: RSS ${result.idleRssMiB} MiB, probe max ${result.idleProbe.maxMs} ms, p99 ${result.idleProbe.p99Ms} ms; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
  );
  printTable(
    `bench:hostile at scale ${scale} (goals: stall <= 200 ms, p99 <= 100 ms, RSS growth <= 512 MiB, settled <= 120 s, server alive)`,
    result.rows.map((row) => ({
      case: row.case,
      status: row.status,
      s: row.seconds,
      chunks: row.chunks,
      'RSS +MiB': row.rssGrowthMiB,
      'with parsers +MiB': row.treeGrowthMiB,
      'probe max ms': row.probeMaxMs,
      'probe p99 ms': row.probeP99Ms,
      'server stall ms': row.serverStallMs,
      'of it CPU ms': row.serverStallCpuMs,
      died: row.serverDied ? 'YES' : '',
    })),
  );
  for (const row of result.rows) if (row.error) console.log(`${row.case}: ${row.error}`);
  writeResult(args.get('result') ?? 'hostile', {
    ...result,
    // Which build served, without this machine's path to it.
    serverDist: args.get('server-dist') ? 'another build (--server-dist)' : 'this build',
    at: new Date().toISOString(),
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
