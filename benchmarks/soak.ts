/**
 * bench:soak. Over loopback, `concurrency` (default 100) clients each keep one
 * streaming agent query open at all times (SSE through `ragdesk/http` on node:http), while
 * ingestion runs (JSON upserts, multipart file uploads, deletes that keep the datastore's size
 * steady) — once with the chat model behind the `openai` adapter (the local OpenAI-compatible test
 * server, streaming with token delays) and once with the offline answerer. Reported per backend:
 * failed requests (the goal is zero), time to first byte and full-answer latency p50/p99, memory
 * after a forced GC at the start and at the end (RSS and heap), and event-loop stalls.
 *
 *   npm run bench:soak -- [--seconds 60] [--concurrency 100] [--backends openai,offline] [--documents 300] [--parser main] [--uploads <folder>] [--result soak-name]
 *
 * The test (test/http/soak.test.ts) runs the same code for a few seconds (RAGDESK_SOAK_SECONDS).
 *
 * Stalls are measured two ways: `monitorEventLoopDelay` (how late timers fired, whatever the cause)
 * and a 10 ms probe that also reads the event loop's own busy time (`eventLoopUtilization`) over each
 * late interval. On a shared machine the process can be off the CPU for 100 ms while its loop is
 * idle: the first figure counts that, the second does not, so "busy stall" is the one that says
 * whether ragdesk's code blocked the loop.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay, type EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { createHttpHandler } from '../adapters/http/index.js';
import { fileLoading } from '../adapters/loaders/index.js';
import { localAnswerer, localEmbeddings } from '../adapters/local/index.js';
import { openaiChat } from '../adapters/openai/index.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { createRagdesk, type ChatModel, type Ragdesk } from '../src/index.js';
import { seededRandom } from '../src/testing/random.js';
import { startOpenAIServer, type OpenAIServer } from '../fixtures/openai-server.js';
import { datasetLabel } from '../fixtures/datasets.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';
import { Timeline, instrument } from './lib/stalls.js';
import { loopThreadCpuMs } from './lib/thread-cpu.js';

export type SoakBackend = 'openai' | 'offline';

export interface SoakOptions {
  /** Seconds of load per backend (after a short warm-up). */
  seconds: number;
  /** Streaming queries kept open at once. */
  concurrency?: number;
  backends?: SoakBackend[];
  /** Documents in the datastore before the load starts. */
  documents?: number;
  /** Ingestion requests per second (each an upsert of a few documents, or a file upload). */
  ingestPerSecond?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Time every Store, index, embedder and chat call, and name the calls inside the longest stall. */
  attribute?: boolean;
  /**
   * Memory is measured (after a forced GC, with the load paused) at the start, after each of this
   * many equal segments of the soak (default 1: only at the end). With 2 or more, the growth after
   * the first segment tells a leak (grows with requests) from pools filling up once.
   */
  checkpoints?: number;
  seed?: number;
  /** Where uploaded files are parsed (default `'worker'`, the library's default). */
  parser?: 'worker' | 'main';
  /**
   * A folder (read recursively) whose PDF, DOCX, PPTX, XLSX and HTML files are uploaded in turn
   * instead of the generated Markdown files (default: none), so the soak carries real parsing.
   */
  uploads?: string;
}

const UPLOAD_TYPES = new Set(['.pdf', '.docx', '.pptx', '.xlsx', '.html']);

function uploadFiles(folder: string): { name: string; bytes: Uint8Array }[] {
  if (!folder) return [];
  const files = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && UPLOAD_TYPES.has(extname(entry.name).toLowerCase()))
    .map((entry) => ({ name: entry.name, bytes: new Uint8Array(readFileSync(join(entry.parentPath, entry.name))) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (files.length === 0) throw new Error(`--uploads ${folder}: no PDF, DOCX, PPTX, XLSX or HTML file in it`);
  return files;
}

export interface MemorySample {
  rssMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
}

export interface BackendReport {
  backend: SoakBackend;
  seconds: number;
  concurrency: number;
  /** Most queries in flight at the same moment, as the clients see it (sent, answer not complete). */
  peakOpenStreams: number;
  /** Most event streams the server was writing at the same moment (sampled every 20 ms). */
  peakServerStreams: number;
  queries: { completed: number; failed: number; perSecond: number; ttfbMs: Latency; totalMs: Latency };
  ingestion: { requests: number; failed: number; documents: number; files: number; deleted: number; latencyMs: Latency };
  /** First failures, for the report (all failures are counted above). */
  failures: string[];
  memory: {
    start: MemorySample;
    end: MemorySample;
    growth: MemorySample;
    /** Every measurement: the start, then the end of each segment (see `checkpoints`). */
    samples: MemorySample[];
    /** End minus the end of the first segment, when there are several: the part that would be a leak. */
    growthAfterFirstSegment?: MemorySample;
  };
  eventLoop: {
    /** Latest a timer fired (monitorEventLoopDelay max), whatever the cause. */
    maxDelayMs: number;
    p99DelayMs: number;
    /** Longest gap between two 10 ms probe ticks. */
    longestGapMs: number;
    /** Most event-loop busy time inside one probe gap (includes time preempted while busy). */
    longestBusyMs: number;
    /** Most time inside one probe gap that the loop was busy and the process on the CPU: a stall of ours. */
    longestStallMs: number;
    gapsOver100ms: number;
    stallsOver100ms: number;
    /** Longest garbage-collection pause and the total spent in GC. */
    longestGcMs: number;
    gcTotalMs: number;
    /** With `attribute`: milliseconds per kind of call inside the longest stall. */
    longestStallCalls?: { kind: string; ms: number }[];
  };
  /** Process CPU time (all threads) per completed query, ingestion included. */
  cpuMsPerQuery: number;
  /** 1-minute load average of the machine at the start and end: how shared the CPUs were. */
  loadAverage: [number, number];
}

export interface Latency {
  p50: number;
  p99: number;
  mean: number;
}

const OWNER = 'soak';
const QUESTIONS = [
  'How do tides work?',
  'What makes bread rise?',
  'Why do volcanoes erupt?',
  'What is a glacier?',
  'How do bees make honey?',
  'What causes rain?',
];
const TOPICS = [
  'tides moon gravity ocean water sun pull coast high low',
  'bread yeast dough flour rise oven bake ferment gas',
  'volcano magma lava ash crust eruption mantle pressure',
  'glacier ice valley snow mountain slow carve rock',
  'bees honey hive flower nectar pollen queen wax',
  'rain cloud water vapour droplet cool condense storm',
];

/** Sentences about a topic: the offline answerer and the retrieval both have something to find. */
function documentText(random: () => number, index: number): string {
  const topic = TOPICS[index % TOPICS.length]!.split(' ');
  const filler = 'the a of and in to is that for on with as by it this from at'.split(' ');
  const sentences: string[] = [];
  for (let s = 0; s < 12 + Math.floor(random() * 12); s++) {
    const words = Array.from(
      { length: 8 + Math.floor(random() * 10) },
      () => (random() < 0.55 ? topic : filler)[Math.floor(random() * (random() < 0.55 ? topic.length : filler.length))],
    );
    const sentence = `${words.join(' ')} ${index}.`;
    sentences.push(sentence.charAt(0).toUpperCase() + sentence.slice(1));
  }
  return sentences.join(' ');
}

function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}

/** A GC function whether or not node was started with --expose-gc. */
function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledMemory(gc: () => void): Promise<MemorySample> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const usage = process.memoryUsage();
  return { rssMiB: mib(usage.rss), heapUsedMiB: mib(usage.heapUsed), externalMiB: mib(usage.external) };
}

/**
 * The 10 ms probe. For every gap between ticks it records the wall time, the event loop's busy time
 * (`eventLoopUtilization().active`: inside callbacks rather than waiting for I/O) and the CPU time
 * the loop's own thread used (not V8's GC and compiler threads, see loopThreadCpuMs). A stall ragdesk caused is busy *and* on the CPU for its whole length; a process
 * preempted on a loaded machine shows wall time without CPU time.
 */
class LoopProbe {
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private lastElu: EventLoopUtilization | undefined;
  private lastCpu = 0;
  longestGap = 0;
  longestBusy = 0;
  /** Longest gap counted as min(busy time, CPU time): how long our own code held the loop. */
  longestStall = 0;
  /** Where the longest stall was, for attribution. */
  longestStallAt = { start: 0, end: 0 };
  gapsOver100 = 0;
  stallsOver100 = 0;

  start(): void {
    this.last = performance.now();
    this.lastElu = performance.eventLoopUtilization();
    this.lastCpu = loopThreadCpuMs();
    this.timer = setInterval(() => this.tick(), 10);
  }

  private tick(): void {
    const now = performance.now();
    const elu = performance.eventLoopUtilization();
    const cpu = loopThreadCpuMs();
    const gap = now - this.last;
    const busy = elu.active - this.lastElu!.active;
    const cpuMs = cpu - this.lastCpu;
    const stall = Math.min(busy, cpuMs, gap);
    this.longestGap = Math.max(this.longestGap, gap);
    this.longestBusy = Math.max(this.longestBusy, busy);
    if (stall > this.longestStall) {
      this.longestStall = stall;
      this.longestStallAt = { start: this.last, end: now };
    }
    if (gap > 110) this.gapsOver100++;
    if (stall > 100) this.stallsOver100++;
    this.last = now;
    this.lastElu = elu;
    this.lastCpu = cpu;
  }

  stop(): void {
    this.tick();
    clearInterval(this.timer);
  }
}

interface ClientInput {
  url: string;
  key: string;
  seconds: number;
  clients: number;
  questions: string[];
}

interface ClientResult {
  ttfb: number[];
  total: number[];
  failed: number;
  failures: string[];
  peakOpen: number;
}

/**
 * The streaming clients. Runs in a child process (`clientsSource` below), so the server's event
 * loop and CPU time hold only ragdesk's work, as they would in production; it must therefore use
 * nothing but globals. Each client keeps one query open at a time, reads its event stream to the end
 * and checks it frame by frame; it keeps a conversation for 3 turns (memory is read back), then
 * starts a new one.
 */
async function clientProcess(input: ClientInput): Promise<void> {
  const deadline = performance.now() + input.seconds * 1000;
  const result: ClientResult = { ttfb: [], total: [], failed: 0, failures: [], peakOpen: 0 };
  let open = 0;
  const fail = (message: string) => {
    result.failed++;
    if (result.failures.length < 20) result.failures.push(message);
  };
  const one = async (body: Record<string, unknown>): Promise<string | undefined> => {
    const started = performance.now();
    let ttfb = Number.NaN;
    const response = await fetch(input.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${input.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, streaming: true }),
    });
    if (response.status !== 200 || !response.body) throw new Error(`status ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (Number.isNaN(ttfb)) ttfb = performance.now() - started;
      text += decoder.decode(chunk, { stream: true });
    }
    const totalMs = performance.now() - started;
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    const last = frames[frames.length - 1];
    if (last !== 'data: [DONE]') throw new Error(`stream ended with ${JSON.stringify(last?.slice(0, 100))}`);
    let answer = '';
    let conversationId: string | undefined;
    for (const frame of frames.slice(0, -1)) {
      const [event, data] = frame.split('\n');
      if (event === 'event: answer' && data?.startsWith('data: ')) answer += decodeURIComponent(data.slice(6));
      else if (event === 'event: endpoint_response' && data?.startsWith('data: ')) {
        const parsed = JSON.parse(decodeURIComponent(data.slice(6))) as { answer: string; conversationId: string };
        if (parsed.answer !== answer) throw new Error('endpoint_response answer differs from the streamed deltas');
        conversationId = parsed.conversationId;
      } else throw new Error(`unexpected frame ${JSON.stringify(frame.slice(0, 100))}`);
    }
    if (!conversationId || answer.trim() === '') throw new Error('no answer or no endpoint_response');
    result.ttfb.push(ttfb);
    result.total.push(totalMs);
    return conversationId;
  };
  const client = async (index: number) => {
    let conversationId: string | undefined;
    for (let turn = 0; performance.now() < deadline; turn++) {
      const body: Record<string, unknown> = {
        query: input.questions[(index + turn) % input.questions.length],
        visitorId: `visitor-${index}`,
      };
      if (conversationId && turn % 3 !== 0) body.conversationId = conversationId;
      open++;
      result.peakOpen = Math.max(result.peakOpen, open);
      try {
        conversationId = await one(body);
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause;
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a fetch failure's cause is an Error; String gives its name and message
        fail(`query: ${(error as Error).message}${cause ? ` (${String(cause)})` : ''}`.slice(0, 300));
      } finally {
        open--;
      }
    }
  };
  await Promise.all(Array.from({ length: input.clients }, (_, index) => client(index)));
  process.stdout.write(JSON.stringify(result));
}

/** Starts the clients in a child process and resolves with what they measured. */
function runClients(input: ClientInput): Promise<ClientResult> {
  // `__name` covers transpilers that wrap functions to keep their names (vitest's esbuild).
  const source = `var __name = (f) => f; (${clientProcess.toString()})(JSON.parse(process.argv[1]));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', source, JSON.stringify(input)], { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`soak clients failed: ${error.message}\n${stderr.slice(0, 2000)}`));
      else resolve(JSON.parse(stdout) as ClientResult);
    });
  });
}

interface Phase {
  ragdesk: Ragdesk;
  /** Spans of adapter calls (recorded only with `attribute`). */
  timeline: Timeline;
  server: Server;
  /** Responses the server is writing right now that are event streams (headers sent, not ended). */
  streaming: Set<ServerResponse>;
  origin: string;
  key: string;
  datastoreId: string;
  agentId: string;
  openai: OpenAIServer | undefined;
  dir: string;
  /** Datasources ingested during the soak and not deleted yet (oldest first), and which are files. */
  live: string[];
  files: string[];
}

async function openPhase(backend: SoakBackend, options: Required<Omit<SoakOptions, 'log'>>): Promise<Phase> {
  const dir = mkdtempSync(join(tmpdir(), `ragdesk-soak-${backend}-`));
  let openai: OpenAIServer | undefined;
  let chat: ChatModel;
  if (backend === 'openai') {
    // A hosted model's pace: the first token after 100 ms, then ~33 pieces a second (~2 s per
    // answer), so a hundred streams really are open at once rather than queued behind each other.
    const reply =
      'The passages say the answer depends on the forces described in the documents, which act together over time and explain what you asked about in some detail [1]. ' +
      'They add that the effect is stronger in some places than in others, that it changes with the seasons, and that people have measured it for a long time [2].';
    openai = await startOpenAIServer({ reply: () => reply, firstTokenDelayMs: 100, interTokenDelayMs: 30 });
    // Default retries, as deployed: a pooled connection the server closed while idle is retried.
    chat = openaiChat({ apiKey: 'soak', baseURL: openai.baseURL });
  } else {
    // Extractive answers are short (a few sentences); 40 ms a word streams them over ~2 s too.
    chat = localAnswerer({ wordDelayMs: 40 });
  }
  const timeline = new Timeline();
  // Proxies only when attributing: they cost a little on every call.
  const watch = <T extends object>(adapter: T, kindOf: (method: string) => string | undefined): T =>
    options.attribute ? instrument(adapter, timeline, kindOf, 'return') : adapter;
  const stores = sqliteStores({ path: join(dir, 'ragdesk.db') });
  const ragdesk = createRagdesk({
    retrieval: watch(stores.retrieval, (method) => `retrieval.${method}`),
    accounts: watch(stores.accounts, (method) => `accounts.${method}`),
    index: watch(hnswIndex({ dir: join(dir, 'indexes') }), (method) => `index.${method}`),
    embeddings: watch(localEmbeddings(), (method) => (method === 'embed' ? 'embed' : undefined)),
    files: fileLoading({ parser: options.parser }),
    chat: watch(chat, (method) => (method === 'generate' || method === 'stream' ? `chat.${method} (call)` : undefined)),
  });
  const key = (await ragdesk.keys.create({ ownerId: OWNER, name: 'soak' })).key;
  const datastore = await ragdesk.datastores.create({ name: 'soak' }, { ownerId: OWNER });
  const random = seededRandom(options.seed);
  for (let start = 0; start < options.documents; start += 50) {
    const batch = Array.from({ length: Math.min(50, options.documents - start) }, (_, i) => ({
      text: documentText(random, start + i),
      name: `seed-${start + i}.md`,
    }));
    await datastore.upsert(batch);
  }
  const agent = await ragdesk.agents.create(
    { name: 'soak', description: 'answers from the soak datastore', datastoreIds: [datastore.id] },
    { ownerId: OWNER },
  );
  const handler = createHttpHandler(ragdesk, {
    logger: { error: (message, fields) => process.stderr.write(`${JSON.stringify({ message, ...fields })}\n`) },
  });
  const streaming = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped below and called with .apply(this)
    const writeHead = response.writeHead;
    response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      const result = writeHead.apply(this, args);
      if (String(this.getHeader('content-type') ?? JSON.stringify(args)).includes('text/event-stream')) streaming.add(this);
      return result;
    } as ServerResponse['writeHead'];
    response.once('close', () => streaming.delete(response));
    handler(request, response);
  });
  // Keep-alive sockets of 100 clients must outlive short pauses between their queries.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ragdesk,
    timeline,
    server,
    streaming,
    origin,
    key,
    datastoreId: datastore.id,
    agentId: agent.id,
    openai,
    dir,
    live: [],
    files: [],
  };
}

async function closePhase(phase: Phase): Promise<void> {
  await new Promise<void>((resolve) => {
    phase.server.closeAllConnections();
    phase.server.close(() => resolve());
  });
  await phase.ragdesk.close();
  await phase.openai?.close();
  rmSync(phase.dir, { recursive: true, force: true });
}

/** Runs `concurrency` query loops and the ingestion loop until `deadline`. */
async function load(
  phase: Phase,
  options: Required<Omit<SoakOptions, 'log'>>,
  seconds: number,
  record: boolean,
  seedOffset: number,
  clients = options.concurrency,
) {
  const deadline = performance.now() + seconds * 1000;
  const random = seededRandom(options.seed + seedOffset);
  // Failures count in the warm-up too; only the latencies are kept for the measured part.
  const failures: string[] = [];
  const note = (message: string) => {
    if (failures.length < 20) failures.push(message);
  };
  const clientRun = runClients({
    url: `${phase.origin}/api/agents/${phase.agentId}/query`,
    key: phase.key,
    seconds,
    clients,
    questions: QUESTIONS,
  });

  const ingestion = { requests: 0, failed: 0, documents: 0, files: 0, deleted: 0, latency: [] as number[] };
  const { live, files } = phase;
  const headers = { authorization: `Bearer ${phase.key}` };
  const uploads = uploadFiles(options.uploads);
  const ingest = async () => {
    const interval = 1000 / options.ingestPerSecond;
    let round = 0;
    while (options.ingestPerSecond > 0 && performance.now() < deadline) {
      const started = performance.now();
      round++;
      try {
        if (round % 5 === 0) {
          const form = new FormData();
          const upload = uploads[(round / 5) % Math.max(1, uploads.length)];
          if (upload) form.set('file', new Blob([upload.bytes]), upload.name);
          else
            form.set(
              'file',
              new Blob([`# Upload ${round}\n\n${documentText(random, round)}\n\n${documentText(random, round + 1)}`], {
                type: 'text/markdown',
              }),
              `upload-${seedOffset}-${round}.md`,
            );
          const response = await fetch(`${phase.origin}/api/external/datastores/file-upload/${phase.datastoreId}`, {
            method: 'POST',
            headers,
            body: form,
          });
          const body = (await response.json()) as { id: string };
          if (response.status !== 200) throw new Error(`file upload: status ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
          live.push(body.id);
          files.push(body.id);
          ingestion.files++;
        } else {
          const documents = Array.from({ length: 3 }, (_, i) => ({
            text: documentText(random, round * 3 + i),
            name: `ingest-${seedOffset}-${round}-${i}.md`,
          }));
          const response = await fetch(`${phase.origin}/api/datastores/upsert/${phase.datastoreId}`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ documents }),
          });
          const body = (await response.json()) as { ids: string[] };
          if (response.status !== 200) throw new Error(`upsert: status ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
          live.push(...body.ids);
          ingestion.documents += documents.length;
        }
        // Keep the datastore's size steady: what was ingested goes again after a while.
        while (live.length > 60) {
          const id = live.shift()!;
          if (files.includes(id)) await phase.ragdesk.datasources.waitUntilSettled(id, 60_000);
          const response = await fetch(`${phase.origin}/api/datasources/${id}`, { method: 'DELETE', headers });
          await response.text();
          if (response.status !== 200) throw new Error(`delete: status ${response.status}`);
          ingestion.deleted++;
        }
        ingestion.requests++;
        if (record) ingestion.latency.push(performance.now() - started);
      } catch (error) {
        ingestion.failed++;
        note(`ingestion: ${(error as Error).message}`);
      }
      const wait = interval - (performance.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    // Every uploaded file must have been loaded, not left failing in the background.
    for (const id of files.filter((file) => live.includes(file))) {
      const settled = await phase.ragdesk.datasources.waitUntilSettled(id, 60_000);
      if (settled.status !== 'synched') {
        ingestion.failed++;
        note(`file ${id} ended ${settled.status}: ${settled.error ?? ''}`);
      }
    }
  };

  const started = performance.now();
  let peakStreaming = 0;
  const gauge = setInterval(() => {
    peakStreaming = Math.max(peakStreaming, phase.streaming.size);
  }, 20);
  const [queries] = await Promise.all([clientRun, ingest()]);
  clearInterval(gauge);
  const elapsed = (performance.now() - started) / 1000;
  failures.unshift(...queries.failures);
  return {
    failures: failures.slice(0, 20),
    queryFailed: queries.failed,
    ttfb: record ? queries.ttfb : [],
    total: record ? queries.total : [],
    elapsed,
    peakOpen: queries.peakOpen,
    peakStreaming,
    ingestion,
  };
}

type LoadResult = Awaited<ReturnType<typeof load>>;

/** Two consecutive segments of load as one. */
function mergeLoads(a: LoadResult, b: LoadResult): LoadResult {
  const sum = (x: number[], y: number[]) => x.concat(y);
  return {
    failures: [...a.failures, ...b.failures].slice(0, 20),
    queryFailed: a.queryFailed + b.queryFailed,
    ttfb: sum(a.ttfb, b.ttfb),
    total: sum(a.total, b.total),
    elapsed: a.elapsed + b.elapsed,
    peakOpen: Math.max(a.peakOpen, b.peakOpen),
    peakStreaming: Math.max(a.peakStreaming, b.peakStreaming),
    ingestion: {
      requests: a.ingestion.requests + b.ingestion.requests,
      failed: a.ingestion.failed + b.ingestion.failed,
      documents: a.ingestion.documents + b.ingestion.documents,
      files: a.ingestion.files + b.ingestion.files,
      deleted: a.ingestion.deleted + b.ingestion.deleted,
      latency: sum(a.ingestion.latency, b.ingestion.latency),
    },
  };
}

function difference(end: MemorySample, start: MemorySample): MemorySample {
  const r = (value: number) => Math.round(value * 10) / 10;
  return {
    rssMiB: r(end.rssMiB - start.rssMiB),
    heapUsedMiB: r(end.heapUsedMiB - start.heapUsedMiB),
    externalMiB: r(end.externalMiB - start.externalMiB),
  };
}

async function runBackend(
  backend: SoakBackend,
  options: Required<Omit<SoakOptions, 'log'>>,
  log: (line: string) => void,
): Promise<BackendReport> {
  const gc = gcFunction();
  const phase = await openPhase(backend, options);
  try {
    log(`${backend}: ${options.documents} documents seeded; warming up`);
    // Warm-up (JIT, the tokenizer's tables, the lexical index) with a few clients, so it does not
    // end with a long queue to drain.
    const warmUp = await load(phase, options, Math.min(3, Math.max(1, options.seconds / 4)), false, 1, Math.min(10, options.concurrency));
    phase.openai?.reset();
    const start = await settledMemory(gc);
    log(`${backend}: ${options.concurrency} streaming clients + ingestion for ${options.seconds} s`);
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    const probe = new LoopProbe();
    const gcPauses: number[] = [];
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPauses.push(entry.duration);
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    const loadBefore = loadavg()[0]!;
    phase.timeline.clear();
    phase.timeline.enabled = options.attribute;
    // The local OpenAI server keeps every request it saw (for tests); forget them as we go so its
    // bookkeeping does not pass for growth of ragdesk's memory.
    const forget = setInterval(() => phase.openai?.reset(), 1000);
    const samples = [start];
    let result: LoadResult | undefined;
    let cpuMicros = 0;
    for (let segment = 0; segment < options.checkpoints; segment++) {
      const cpuBefore = process.cpuUsage();
      histogram.enable();
      probe.start();
      const part = await load(phase, options, options.seconds / options.checkpoints, true, 2 + segment);
      probe.stop();
      histogram.disable();
      const cpu = process.cpuUsage(cpuBefore);
      cpuMicros += cpu.user + cpu.system;
      result = result ? mergeLoads(result, part) : part;
      phase.openai?.reset();
      // Measured with the load paused: the forced GC would otherwise count as a stall.
      samples.push(await settledMemory(gc));
    }
    gcObserver.disconnect();
    phase.timeline.enabled = false;
    clearInterval(forget);
    const end = samples.at(-1)!;
    if (!result) throw new Error('no segment ran');
    const completed = result.ttfb.length;
    return {
      backend,
      seconds: Math.round(result.elapsed * 10) / 10,
      concurrency: options.concurrency,
      peakOpenStreams: result.peakOpen,
      peakServerStreams: result.peakStreaming,
      queries: {
        completed,
        failed: warmUp.queryFailed + result.queryFailed,
        perSecond: Math.round((completed / result.elapsed) * 10) / 10,
        ttfbMs: round(latencySummary(result.ttfb)),
        totalMs: round(latencySummary(result.total)),
      },
      ingestion: {
        requests: result.ingestion.requests,
        failed: warmUp.ingestion.failed + result.ingestion.failed,
        documents: result.ingestion.documents,
        files: result.ingestion.files,
        deleted: result.ingestion.deleted,
        latencyMs: round(latencySummary(result.ingestion.latency)),
      },
      failures: [...warmUp.failures, ...result.failures].slice(0, 20),
      memory: {
        start,
        end,
        growth: difference(end, start),
        samples,
        ...(samples.length > 2 ? { growthAfterFirstSegment: difference(end, samples[1]!) } : {}),
      },
      eventLoop: {
        maxDelayMs: Math.round(histogram.max / 1e5) / 10,
        p99DelayMs: Math.round(histogram.percentile(99) / 1e5) / 10,
        longestGapMs: Math.round(probe.longestGap),
        longestBusyMs: Math.round(probe.longestBusy),
        longestStallMs: Math.round(probe.longestStall),
        gapsOver100ms: probe.gapsOver100,
        stallsOver100ms: probe.stallsOver100,
        longestGcMs: Math.round(Math.max(0, ...gcPauses) * 10) / 10,
        gcTotalMs: Math.round(gcPauses.reduce((sum, ms) => sum + ms, 0)),
        ...(options.attribute
          ? {
              longestStallCalls: phase.timeline
                .attribute(probe.longestStallAt)
                .slice(0, 6)
                .map((row) => ({ kind: row.kind, ms: Math.round(row.ms * 10) / 10 })),
            }
          : {}),
      },
      cpuMsPerQuery: Math.round((cpuMicros / 1000 / Math.max(1, completed)) * 10) / 10,
      loadAverage: [Math.round(loadBefore * 10) / 10, Math.round(loadavg()[0]! * 10) / 10],
    };
  } finally {
    await closePhase(phase);
  }
}

function round(latency: Latency): Latency {
  const r = (value: number) => (Number.isFinite(value) ? Math.round(value * 10) / 10 : value);
  return { p50: r(latency.p50), p99: r(latency.p99), mean: r(latency.mean) };
}

/** Runs the soak for each backend in turn and returns one report per backend. */
export async function runSoak(options: SoakOptions): Promise<BackendReport[]> {
  const resolved: Required<Omit<SoakOptions, 'log'>> = {
    seconds: options.seconds,
    concurrency: options.concurrency ?? 100,
    backends: options.backends ?? ['openai', 'offline'],
    documents: options.documents ?? 300,
    ingestPerSecond: options.ingestPerSecond ?? 4,
    seed: options.seed ?? 7,
    attribute: options.attribute ?? false,
    checkpoints: Math.max(1, Math.floor(options.checkpoints ?? 1)),
    parser: options.parser ?? 'worker',
    uploads: options.uploads ? datasetLabel(options.uploads) : '',
  };
  const log = options.log ?? (() => undefined);
  const reports: BackendReport[] = [];
  for (const backend of resolved.backends) reports.push(await runBackend(backend, resolved, log));
  return reports;
}

export function soakRows(reports: readonly BackendReport[]): Record<string, string | number>[] {
  return reports.map((report) => ({
    backend: report.backend,
    seconds: report.seconds,
    'in flight / streaming': `${report.peakOpenStreams} / ${report.peakServerStreams}`,
    queries: report.queries.completed,
    'q/s': report.queries.perSecond,
    failed: report.queries.failed + report.ingestion.failed,
    'ttfb p50/p99 ms': `${report.queries.ttfbMs.p50} / ${report.queries.ttfbMs.p99}`,
    'answer p50/p99 ms': `${report.queries.totalMs.p50} / ${report.queries.totalMs.p99}`,
    ingested: `${report.ingestion.documents} docs + ${report.ingestion.files} files, ${report.ingestion.deleted} deleted`,
    'heap MiB': report.memory.samples.map((sample) => sample.heapUsedMiB).join(' → '),
    'rss MiB': report.memory.samples.map((sample) => sample.rssMiB).join(' → '),
    'loop delay / busy / stall ms': `${report.eventLoop.maxDelayMs} / ${report.eventLoop.longestBusyMs} / ${report.eventLoop.longestStallMs}`,
    'gc max ms': report.eventLoop.longestGcMs,
    'cpu ms/q': report.cpuMsPerQuery,
    load: `${report.loadAverage[0]}→${report.loadAverage[1]}`,
  }));
}

async function main(): Promise<void> {
  const args = flags(process.argv.slice(2));
  const seconds = Number(args.get('seconds') ?? 60);
  const reports = await runSoak({
    seconds,
    concurrency: Number(args.get('concurrency') ?? 100),
    backends: (args.get('backends') ?? 'openai,offline').split(',') as SoakBackend[],
    documents: Number(args.get('documents') ?? 300),
    ingestPerSecond: Number(args.get('ingest-per-second') ?? 4),
    attribute: args.has('attribute'),
    checkpoints: Number(args.get('checkpoints') ?? 2),
    parser: args.get('parser') === 'main' ? 'main' : 'worker',
    uploads: args.get('uploads') ?? '',
    log: (line) => console.log(line),
  });
  printTable(`Soak: streaming agent queries over loopback while ingesting (${seconds} s per backend)`, soakRows(reports));
  for (const report of reports) {
    const calls = report.eventLoop.longestStallCalls;
    if (calls)
      console.log(
        `\n${report.backend}: longest stall ${report.eventLoop.longestStallMs} ms; calls inside it: ${calls.map((row) => `${row.kind} ${row.ms} ms`).join(', ')}`,
      );
    if (report.failures.length > 0)
      console.log(`\n${report.backend} failures (first ${report.failures.length}):\n  ${report.failures.join('\n  ')}`);
  }
  // `--result <name>` keeps an A/B run from replacing the published soak.json.
  writeResult(args.get('result') ?? 'soak', {
    seconds,
    parser: args.get('parser') ?? 'worker',
    uploads: args.get('uploads') ?? null,
    reports,
  });
  const failed = reports.reduce((sum, report) => sum + report.queries.failed + report.ingestion.failed, 0);
  if (failed > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
