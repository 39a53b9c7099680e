/**
 * bench:hostile-visitors — what anonymous visitors of a public agent can make `ragdesk serve` do.
 * The server (benchmarks/lib/visitor-server.ts) is `ragdesk serve` with its default limits; an
 * attacker's host runs in this process on loopback, let through by the web loader's address hook.
 * A neighbour (another owner of the same server) queries its own datastore every 200 ms.
 *
 * Cases: one anonymous query with 10 attachments whose bodies trickle and never end; one with an
 * attachment behind a chain of redirects, each hop answered just before the loader's per-hop
 * timeout; three anonymous queries with 10 PDF deflate bombs each while the owner uploads a file
 * (its time against an idle upload measured in the same run); 30 s of anonymous queries from 8
 * loops, each starting a new conversation (conversations stored, WAL size, owner's quota after).
 * Goals: no server stall over 200 ms, RSS growth <= 512 MiB (server and its parsers), server
 * alive, the owner's upload under attack at most 3x its idle time (and 2 s more at most).
 *
 *   npm run bench:hostile-visitors -- [--scale 1] [--cases slow,redirect,bombs,load] [--server-dist <dist>] [--result hostile-visitors]
 *
 * `--server-dist` runs the server from another build (an older commit's `dist/`, with this file's
 * compiled lib/visitor-server.js copied into its benchmarks/lib) for before/after figures.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { makePdf } from '../fixtures/pdf-writer.js';
import { pdfDeflateBomb } from './lib/hostile-cases.js';
import { flags, percentile, printTable, writeResult } from './lib/report.js';
import { requestJson, rssOf, startServerProcess, treeRssOf, type ServerProcess } from './lib/server-process.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const OWNER_KEY = 'visitor-bench-owner-key-0123456789abcdef';
const ATTACKER_HOST = 'attacker.test';
const MIB = 1024 * 1024;

export interface VisitorBenchOptions {
  scale: number;
  cases?: string[];
  serverDist?: string;
  /** Extra `ragdesk serve` flags. */
  serveFlags?: string[];
  log?: (line: string) => void;
}

export interface VisitorRow {
  case: string;
  outcome: string;
  seconds: number;
  rssGrowthMiB: number;
  treeGrowthMiB: number;
  probeMaxMs: number;
  probeP99Ms: number;
  serverStallMs: number;
  serverStallCpuMs: number;
  serverDied: boolean;
  /** Case-specific figures (upload seconds, conversations stored, WAL bytes, statuses). */
  figures: Record<string, number | string>;
}

type Server = ServerProcess<{ origin: string; neighbourKey: string }>;

function startServer(options: VisitorBenchOptions, dataDir: string): Promise<Server> {
  const dist = options.serverDist ?? (HERE.includes(`${sep}dist${sep}`) ? join(HERE, '..') : join(HERE, '..', 'dist'));
  const script = join(dist, 'benchmarks', 'lib', 'visitor-server.js');
  return startServerProcess(script, [dataDir, OWNER_KEY, ATTACKER_HOST, JSON.stringify(options.serveFlags ?? [])], {
    env: { PATH: process.env.PATH },
  });
}

function call(
  origin: string,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
): Promise<{ status: number; json: unknown; headers: Headers }> {
  return requestJson(origin, method, path, { key, body, timeoutMs: 300_000 });
}

/** The attacker's host: trickling bodies, slow redirect hops, PDF bombs. */
async function startAttacker(scale: number): Promise<{ port: number; close(): Promise<void> }> {
  const hopDelayMs = Math.max(20, Math.round(14_000 * scale));
  const bomb = pdfDeflateBomb(Math.max(64, Math.round(3_500 * scale)));
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') return void response.writeHead(404).end();
    if (path.startsWith('/slow/')) {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      open.add(response);
      const timer = setInterval(() => response.write('%'), 1_000);
      response.once('close', () => (clearInterval(timer), open.delete(response)));
      return;
    }
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) {
      const timer = setTimeout(() => response.writeHead(302, { location: `/hop/${Number(hop[1]) + 1}` }).end(), hopDelayMs);
      response.once('close', () => clearTimeout(timer));
      return;
    }
    if (path.startsWith('/bomb/')) return void response.writeHead(200, { 'content-type': 'application/pdf' }).end(bomb);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function startProbe(server: Server, datastoreId: string): { samples: number[]; stop(): Promise<void> } {
  const samples: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const started = performance.now();
    const done = () => void samples.push(performance.now() - started);
    const probe = call(server.origin, 'POST', `/datastores/${datastoreId}/query`, server.hello.neighbourKey, {
      query: 'retrieval ranks vectors',
      topK: 3,
    })
      .then(done, done)
      .finally(() => inFlight.delete(probe));
    inFlight.add(probe);
  }, 200);
  return {
    samples,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

/** The owner uploads a small PDF and waits until it is searchable; seconds. */
async function ownerUpload(server: Server, datastoreId: string, n: number): Promise<number> {
  const started = performance.now();
  const form = new FormData();
  form.set('type', 'file');
  form.set('datastoreId', datastoreId);
  const pdf = makePdf([[`Owner handbook ${n}: returns are accepted within thirty days.`], ['Shipping takes three days.']]);
  form.set('file', new Blob([pdf], { type: 'application/pdf' }), `handbook-${n}.pdf`);
  const created = await call(server.origin, 'POST', '/datasources', OWNER_KEY, form);
  if (created.status !== 200) throw new Error(`owner upload refused: ${created.status} ${JSON.stringify(created.json)}`);
  const id = (created.json as { id: string }).id;
  for (;;) {
    const { json } = await call(server.origin, 'GET', `/datasources/${id}`, OWNER_KEY);
    const status = (json as { status?: string }).status ?? '';
    if (!['pending', 'running'].includes(status)) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Setup {
  server: Server;
  dataDir: string;
  agentId: string;
  ownerStoreId: string;
  probeStoreId: string;
  attacker: string;
  scale: number;
}

type CaseRun = (setup: Setup) => Promise<{ outcome: string; figures: Record<string, number | string> }>;

const anonymousQuery = (setup: Setup, body: Record<string, unknown>) =>
  call(setup.server.origin, 'POST', `/agents/${setup.agentId}/query`, null, { query: 'What do these files say?', ...body });

function warningsOf(json: unknown): string[] {
  return ((json as { warnings?: string[] }).warnings ?? []).map((warning) => warning.slice(0, 120));
}

const CASES: Array<{ name: string; run: CaseRun }> = [
  {
    name: '10 slow attachments, one anonymous query',
    run: async (setup) => {
      const attachments = Array.from({ length: 10 }, (_, i) => ({
        name: `slow-${i}.pdf`,
        url: `${setup.attacker}/slow/${i}`,
        mimeType: 'application/pdf',
      }));
      const started = performance.now();
      const { status, json } = await anonymousQuery(setup, { attachments });
      return {
        outcome: `http ${status}`,
        figures: {
          requestSeconds: round((performance.now() - started) / 1000),
          warnings: warningsOf(json).length,
          firstWarning: warningsOf(json)[0] ?? '',
        },
      };
    },
  },
  {
    name: 'slow redirect chain, one anonymous query',
    run: async (setup) => {
      const started = performance.now();
      const { status, json } = await anonymousQuery(setup, { attachments: [{ name: 'chain.pdf', url: `${setup.attacker}/hop/0` }] });
      return {
        outcome: `http ${status}`,
        figures: { requestSeconds: round((performance.now() - started) / 1000), firstWarning: warningsOf(json)[0] ?? '' },
      };
    },
  },
  {
    name: '3 anonymous queries x 10 PDF bombs, owner uploads meanwhile',
    run: async (setup) => {
      const idle = await ownerUpload(setup.server, setup.ownerStoreId, 0);
      const queries = Array.from({ length: 3 }, (_, q) =>
        anonymousQuery(setup, {
          attachments: Array.from({ length: 10 }, (_, i) => ({
            name: `bomb-${q}-${i}.pdf`,
            url: `${setup.attacker}/bomb/${q}-${i}.pdf`,
            mimeType: 'application/pdf',
          })),
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const underAttack = await ownerUpload(setup.server, setup.ownerStoreId, 1);
      const answers = await Promise.all(queries);
      return {
        outcome: answers.map((answer) => answer.status).join(','),
        figures: {
          ownerUploadIdleS: round(idle),
          ownerUploadUnderAttackS: round(underAttack),
          slowdown: round(underAttack / idle),
          firstWarning: warningsOf(answers[0]!.json)[0] ?? '',
        },
      };
    },
  },
  {
    name: 'anonymous load, 8 loops of new conversations',
    run: async (setup) => {
      const seconds = Math.max(3, 30 * Math.min(1, setup.scale * 10));
      const statuses = new Map<number, number>();
      const until = performance.now() + seconds * 1000;
      const loop = async () => {
        while (performance.now() < until) {
          const { status } = await anonymousQuery(setup, { query: 'How do returns work?' }).catch(() => ({ status: 0 }));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 8 }, loop));
      const owner = await call(setup.server.origin, 'POST', `/agents/${setup.agentId}/query`, OWNER_KEY, { query: 'How do returns work?' });
      const db = new Database(join(setup.dataDir, 'ragdesk.db'), { readonly: true, fileMustExist: true });
      const conversations = (db.prepare('SELECT count(*) AS n FROM conversations').get() as { n: number }).n;
      db.close();
      const wal = join(setup.dataDir, 'ragdesk.db-wal');
      return {
        outcome: [...statuses].map(([status, count]) => `${status}x${count}`).join(' '),
        figures: {
          loadSeconds: seconds,
          conversationsStored: conversations,
          walMiB: existsSync(wal) ? round(statSync(wal).size / MIB) : 0,
          dbMiB: round(statSync(join(setup.dataDir, 'ragdesk.db')).size / MIB),
          ownerQueryAfter: owner.status,
        },
      };
    },
  },
];

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export async function runVisitorBench(options: VisitorBenchOptions): Promise<{ idleRssMiB: number; rows: VisitorRow[] }> {
  const log = options.log ?? (() => undefined);
  const selected = CASES.filter(
    (testCase) => !options.cases?.length || options.cases.some((name) => testCase.name.toLowerCase().includes(name)),
  );
  const attacker = await startAttacker(options.scale);
  const dataDir = mkdtempSync(join(tmpdir(), 'ragdesk-visitors-'));
  let server = await startServer(options, dataDir);
  const rows: VisitorRow[] = [];
  try {
    const setupFor = async (current: Server): Promise<Setup> => {
      const ownerStore = await call(current.origin, 'POST', '/datastores', OWNER_KEY, { name: 'owner docs' });
      const ownerStoreId = (ownerStore.json as { id: string }).id;
      await call(current.origin, 'POST', `/datastores/upsert/${ownerStoreId}`, OWNER_KEY, {
        documents: [{ text: 'Returns are accepted within thirty days of delivery.' }, { text: 'Shipping takes three business days.' }],
      });
      const agent = await call(current.origin, 'POST', '/agents', OWNER_KEY, {
        name: 'support',
        description: 'public support agent',
        visibility: 'public',
        tools: [{ type: 'datastore', datastoreId: ownerStoreId }],
      });
      const probeStore = await call(current.origin, 'POST', '/datastores', current.hello.neighbourKey, { name: 'probe' });
      const probeStoreId = (probeStore.json as { id: string }).id;
      await call(current.origin, 'POST', `/datastores/upsert/${probeStoreId}`, current.hello.neighbourKey, {
        documents: Array.from({ length: 20 }, (_, i) => ({ text: `Document ${i}: the index stores vectors and retrieval ranks them.` })),
      });
      return {
        server: current,
        dataDir,
        agentId: (agent.json as { id: string }).id,
        ownerStoreId,
        probeStoreId,
        attacker: `http://${ATTACKER_HOST}:${attacker.port}`,
        scale: options.scale,
      };
    };
    let setup = await setupFor(server);
    const idleRss = rssOf(server.pid);
    for (const testCase of selected) {
      log(`case: ${testCase.name}`);
      let rssPeak = 0;
      let treePeak = 0;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, rssOf(server.pid));
        treePeak = Math.max(treePeak, treeRssOf(server.pid));
      }, 100);
      const idleTree = treeRssOf(server.pid);
      const caseIdleRss = rssOf(server.pid);
      const probe = startProbe(server, setup.probeStoreId);
      server.takeStall();
      const started = performance.now();
      let result: Awaited<ReturnType<CaseRun>>;
      try {
        result = await testCase.run(setup);
      } catch (error) {
        result = { outcome: server.alive() ? `failed: ${String(error).slice(0, 120)}` : 'server died', figures: {} };
      }
      const seconds = (performance.now() - started) / 1000;
      await probe.stop();
      clearInterval(sampler);
      const stall = server.takeStall();
      const sorted = [...probe.samples].sort((a, b) => a - b);
      const row: VisitorRow = {
        case: testCase.name,
        outcome: result.outcome,
        seconds: round(seconds),
        rssGrowthMiB: Math.round((rssPeak - caseIdleRss) / MIB),
        treeGrowthMiB: Math.round((treePeak - idleTree) / MIB),
        probeMaxMs: Math.round(sorted.at(-1) ?? 0),
        probeP99Ms: Math.round(percentile(sorted, 99)),
        serverStallMs: stall.stallMs,
        serverStallCpuMs: stall.stallCpuMs,
        serverDied: !server.alive(),
        figures: result.figures,
      };
      log(
        `  ${row.outcome} in ${row.seconds} s, RSS +${row.rssGrowthMiB} MiB (with parsers +${row.treeGrowthMiB}), stall ${row.serverStallMs} ms, ${JSON.stringify(row.figures)}`,
      );
      rows.push(row);
      if (!server.alive()) {
        await server.stop();
        server = await startServer(options, dataDir);
        setup = await setupFor(server);
      }
    }
    return { idleRssMiB: Math.round(idleRss / MIB), rows };
  } finally {
    await server.stop();
    await attacker.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = flags(process.argv.slice(2));
  const scale = Number(args.get('scale') ?? '1');
  const result = await runVisitorBench({
    scale,
    ...(args.get('cases') ? { cases: args.get('cases')!.split(',') } : {}),
    ...(args.get('server-dist') ? { serverDist: args.get('server-dist')! } : {}),
    log: (line) => console.log(line),
  });
  console.log(`idle server RSS ${result.idleRssMiB} MiB; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
  printTable(
    `bench:hostile-visitors at scale ${scale} (goals: stall <= 200 ms, RSS growth <= 512 MiB, server alive, owner upload <= 3x idle)`,
    result.rows.map((row) => ({
      case: row.case,
      outcome: row.outcome.slice(0, 40),
      s: row.seconds,
      'RSS +MiB': row.rssGrowthMiB,
      'with parsers +MiB': row.treeGrowthMiB,
      'probe max ms': row.probeMaxMs,
      'server stall ms': row.serverStallMs,
      'of it CPU ms': row.serverStallCpuMs,
      died: row.serverDied ? 'YES' : '',
    })),
  );
  for (const row of result.rows) console.log(`${row.case}: ${JSON.stringify(row.figures)}`);
  writeResult(args.get('result') ?? 'hostile-visitors', {
    scale,
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
