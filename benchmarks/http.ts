/**
 * bench:http — datastore query over HTTP (node:http + ragdesk/http, loopback, with API-key auth)
 * against the in-process call rate on the same data, in the same run. autocannon drives the HTTP
 * side from a child process, so the load generator shares neither the server's event loop nor its
 * CPU accounting. The two sides alternate in short rounds, so a change in machine load (other
 * processes) hits both alike; the ratio reported is the median of the per-round ratios. Besides
 * throughput, the CPU time this process spends per call (in-process) and per request (HTTP) is
 * measured; the difference is what the HTTP path costs the server (parsing, auth, JSON, and the
 * kernel's loopback write, which on a VM includes waking the client process).
 *
 *   npm run bench:http -- [--documents 5000] [--connections 10] [--duration 20] [--rounds 5]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpHandler } from '../adapters/http/index.js';
import { openRagdesk } from '../adapters/node.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';
import { syntheticCorpus } from './lib/synthetic.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon');

/** Runs autocannon in a child process and returns its result. */
function autocannon(options: Record<string, unknown>): Promise<AutocannonResult> {
  const script = `require(${JSON.stringify(AUTOCANNON)})(JSON.parse(process.argv[1])).then((r) => process.stdout.write(JSON.stringify(r)))`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, JSON.stringify(options)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile passes an ExecFileException, an Error the rule does not recognise (its type is an Omit<> of one)
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as AutocannonResult);
    });
  });
}

/** CPU milliseconds (user + system) this process spent while `run` ran. */
async function withCpu<T>(run: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

const args = flags(process.argv.slice(2));
const DOCUMENTS = Number(args.get('documents') ?? 5000);
const CONNECTIONS = Number(args.get('connections') ?? 10);
const DURATION = Number(args.get('duration') ?? 20);
const ROUNDS = Number(args.get('rounds') ?? 5);
const TOP_K = 5;
const GOAL = 0.6;

async function inProcess(
  query: (body: { query: string; topK: number }) => Promise<unknown>,
  bodies: string[],
  seconds: number,
  concurrency: number,
) {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const body = JSON.parse(bodies[next++ % bodies.length]!) as { query: string; topK: number };
      const started = performance.now();
      await query(body);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / elapsed, ...latencySummary(latencies), calls: latencies.length };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-http-'));
  const ragdesk = openRagdesk({ dataDir: dir, env: {} });
  try {
    console.log(
      `bench:http — ${DOCUMENTS} documents, ${CONNECTIONS} connections / concurrent calls, ${DURATION} s per side, embedder ${ragdesk.adapters.embeddings}`,
    );
    const corpus = syntheticCorpus({ count: DOCUMENTS, dimensions: 8, clusters: 100, queries: 200, seed: 7 });
    const datastore = await ragdesk.datastores.create({ name: 'bench' }, { ownerId: 'bench' });
    const ingestStart = performance.now();
    for (let start = 0; start < corpus.texts.length; start += 1000) {
      await datastore.upsert(corpus.texts.slice(start, start + 1000).map((text) => ({ text })));
    }
    console.log(`ingested in ${((performance.now() - ingestStart) / 1000).toFixed(1)} s`);
    const bodies = corpus.queries.map((query) => JSON.stringify({ query: query.text, topK: TOP_K }));
    const { key } = await ragdesk.keys.create({ ownerId: 'bench', scopes: ['query'] });

    const server = createServer(createHttpHandler(ragdesk));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/datastores/${datastore.id}/query`;

    // Warm both paths (index open, JIT) before measuring.
    await inProcess((body) => datastore.query(body), bodies, 2, CONNECTIONS);
    const requests = bodies.map((body) => ({ method: 'POST', body }));
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    await autocannon({ url, connections: CONNECTIONS, duration: 2, headers, requests });

    const perRound = Math.max(1, Math.round(DURATION / ROUNDS));
    const directRounds: Awaited<ReturnType<typeof inProcess>>[] = [];
    const httpRounds: AutocannonResult[] = [];
    let directCpuMs = 0;
    let httpCpuMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const direct = await withCpu(() => inProcess((body) => datastore.query(body), bodies, perRound, CONNECTIONS));
      directRounds.push(direct.result);
      directCpuMs += direct.cpuMs;
      const http = await withCpu(() => autocannon({ url, connections: CONNECTIONS, duration: perRound, headers, requests }));
      httpRounds.push(http.result);
      httpCpuMs += http.cpuMs;
    }
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    const failures = httpRounds.reduce((sum, run) => sum + run.non2xx + run.errors, 0);
    if (failures > 0) throw new Error(`HTTP runs had ${failures} non-2xx answers or errors`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const roundRatios = httpRounds.map((run, round) => run.requests.average / directRounds[round]!.perSecond);
    const direct = {
      perSecond: median(directRounds.map((run) => run.perSecond)),
      p50: median(directRounds.map((run) => run.p50)),
      p99: median(directRounds.map((run) => run.p99)),
      calls: directRounds.reduce((sum, run) => sum + run.calls, 0),
    };
    const http = {
      requests: {
        average: median(httpRounds.map((run) => run.requests.average)),
        total: httpRounds.reduce((sum, run) => sum + run.requests.total, 0),
      },
      latency: { p50: median(httpRounds.map((run) => run.latency.p50)), p99: median(httpRounds.map((run) => run.latency.p99)) },
    };
    const ratio = median(roundRatios);
    const cpuPerCall = directCpuMs / direct.calls;
    const cpuPerRequest = httpCpuMs / http.requests.total;
    const rows = [
      {
        path: 'in-process datastore.query',
        'calls/s': direct.perSecond,
        'p50 ms': direct.p50,
        'p99 ms': direct.p99,
        calls: direct.calls,
        'CPU ms/call': cpuPerCall,
      },
      {
        path: 'HTTP POST /api/datastores/{id}/query',
        'calls/s': http.requests.average,
        'p50 ms': http.latency.p50,
        'p99 ms': http.latency.p99,
        calls: http.requests.total,
        'CPU ms/call': cpuPerRequest,
      },
    ];
    printTable(
      `Datastore query, ${DOCUMENTS} documents, topK ${TOP_K}, ${CONNECTIONS} concurrent (medians of ${ROUNDS} alternating rounds of ${perRound} s)`,
      rows,
    );
    console.log(`per-round ratios: ${roundRatios.map((value) => value.toFixed(2)).join(', ')}`);
    console.log(`\nHTTP / in-process throughput: ${ratio.toFixed(2)} (goal >= ${GOAL}: ${ratio >= GOAL ? 'met' : 'NOT met'})`);
    console.log(
      `server CPU per call, in-process / HTTP: ${(cpuPerCall / cpuPerRequest).toFixed(2)} (${(cpuPerRequest - cpuPerCall).toFixed(3)} ms more per HTTP request: parsing, auth, JSON, socket writes)`,
    );
    writeResult('http', {
      documents: DOCUMENTS,
      connections: CONNECTIONS,
      rounds: ROUNDS,
      secondsPerRound: perRound,
      topK: TOP_K,
      roundRatios,
      embeddings: ragdesk.adapters.embeddings,
      rows,
      ratio,
      cpuRatio: cpuPerCall / cpuPerRequest,
      httpCpuMsPerRequest: cpuPerRequest - cpuPerCall,
      goal: GOAL,
      goalMet: ratio >= GOAL,
    });
  } finally {
    await ragdesk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
