/**
 * The child process of the crash harness: opens the embedded default on a data directory and runs
 * a seeded stream of ingestion (upserts, updates, deletes, file uploads, web pages and sites from
 * the parent's local server, re-syncs, datastores created and deleted) with two callers at once
 * and background sync jobs, until the parent kills it with SIGKILL.
 *
 * Runs from `dist/` (`node dist/benchmarks/crash/worker.js`, then one JSON config line on stdin):
 * Node 20 cannot run TypeScript. The composition is `openRagdesk`'s (same files under the data directory) except that
 * the HNSW idle flush is configurable, so index writes happen inside the kill window, and private
 * addresses are allowed for the local site.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileLoading } from '../../adapters/loaders/index.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, type Datastore, type Ragdesk } from '../../src/index.js';
import { seededRandom } from '../../src/testing/random.js';
import { LOADED_LINE, OP_PREFIX, READY_LINE, type WorkerConfig } from './protocol.js';
import { PAGE_COUNT, SITE_COUNT } from './site.js';

const WORDS = (
  'river glacier harbour lantern copper meadow orbit signal canvas thunder velvet quarry ' +
  'falcon prism ember tundra cedar mosaic beacon summit willow cobalt nebula saffron anchor ' +
  'delta fjord granite ivory juniper kelp lagoon marble nectar opal pepper quartz reef sierra'
).split(' ');

export function openWorkerRagdesk(config: WorkerConfig): Ragdesk {
  return createRagdesk({
    ...sqliteStores({ path: join(config.dataDir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(config.dataDir, 'indexes'), flushAfterMs: config.flushAfterMs }),
    embeddings: localEmbeddings(),
    files: fileLoading(),
    web: webLoader({ allowPrivateNetwork: true, timeoutMs: 5_000 }),
    jobs: { concurrency: 2, retry: { baseDelayMs: 50, maxAttempts: 3 } },
  });
}

type Op = (ragdesk: Ragdesk) => Promise<unknown>;

class Workload {
  private readonly random: () => number;
  private readonly fixtures: { name: string; bytes: Uint8Array }[];
  private counter = 0;

  constructor(private readonly config: WorkerConfig) {
    this.random = seededRandom(config.seed);
    this.fixtures = readdirSync(config.fixturesDir)
      .sort()
      .map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(config.fixturesDir, name))) }));
  }

  private int(max: number): number {
    return Math.floor(this.random() * max);
  }

  private pick<T>(items: readonly T[]): T | undefined {
    return items.length ? items[this.int(items.length)] : undefined;
  }

  /** Mostly one chunk, sometimes several (512-token chunks), with repeated paragraphs so vectors are reused by hash. */
  private text(): string {
    const marker = `DOC-${this.config.seed}-${++this.counter}`;
    const words = this.random() < 0.2 ? 700 + this.int(900) : 20 + this.int(200);
    const parts: string[] = [marker];
    for (let i = 0; i < words; i++) parts.push(this.pick(WORDS) as string);
    if (this.random() < 0.3) parts.push('\n\nShared closing paragraph about the harbour lantern and the copper meadow.');
    return parts.join(' ');
  }

  /** One of the ops, weighted; ops on random existing records may race the other caller (errors are expected then). */
  nextOp(): [string, Op] {
    const roll = this.random() * 100;
    const docs = (n: number) => Array.from({ length: n }, () => ({ text: this.text(), metadata: { seed: this.config.seed } }));
    const store = async (ragdesk: Ragdesk): Promise<Datastore> => {
      const all = await ragdesk.datastores.list();
      return all[this.int(all.length)] ?? ragdesk.datastores.create({ name: 'crash' });
    };
    const someSource = async (ragdesk: Ragdesk, types: readonly string[]) => {
      const datastore = await store(ragdesk);
      return this.pick((await ragdesk.datasources.list(datastore.id)).filter((source) => types.includes(source.type)));
    };
    if (roll < 30) {
      const count = 1 + this.int(4);
      const batch = docs(count);
      return [`upsert ${count}`, async (ragdesk) => (await store(ragdesk)).upsert(batch)];
    }
    if (roll < 44) {
      const text = this.text();
      return [
        'update',
        async (ragdesk) => {
          const source = await someSource(ragdesk, ['text']);
          if (source) await (await ragdesk.datastores.get(source.datastoreId)).update({ id: source.id, text });
        },
      ];
    }
    if (roll < 52) {
      return [
        'delete',
        async (ragdesk) => {
          const source = await someSource(ragdesk, ['text', 'file', 'web_page', 'web_site']);
          if (source) await ragdesk.datasources.delete(source.id);
        },
      ];
    }
    if (roll < 64) {
      const fixture = this.pick(this.fixtures) as { name: string; bytes: Uint8Array };
      return [
        `file ${fixture.name}`,
        async (ragdesk) =>
          ragdesk.datasources.create({
            type: 'file',
            datastoreId: (await store(ragdesk)).id,
            file: { bytes: fixture.bytes, fileName: fixture.name },
          }),
      ];
    }
    if (roll < 72) {
      const url = `${this.config.origin}/p/${this.int(PAGE_COUNT)}`;
      return [
        'web_page',
        async (ragdesk) =>
          ragdesk.datasources.create({ type: 'web_page', datastoreId: (await store(ragdesk)).id, config: { source_url: url } }),
      ];
    }
    if (roll < 78) {
      const sitemap = `${this.config.origin}/s/${this.int(SITE_COUNT)}/sitemap.xml`;
      return [
        'web_site',
        async (ragdesk) =>
          ragdesk.datasources.create({ type: 'web_site', datastoreId: (await store(ragdesk)).id, config: { sitemap, max_pages: 20 } }),
      ];
    }
    if (roll < 90) {
      return [
        'sync',
        async (ragdesk) => {
          const source = await someSource(ragdesk, ['file', 'web_page', 'web_site']);
          if (source && !source.groupId) await ragdesk.datasources.sync(source.id);
        },
      ];
    }
    if (roll < 95) {
      return [
        'settle',
        async (ragdesk) => {
          const source = await someSource(ragdesk, ['file', 'web_page', 'web_site']);
          if (source) await ragdesk.datasources.waitUntilSettled(source.id, 5_000);
        },
      ];
    }
    if (roll < 98) {
      return [
        'datastore create',
        async (ragdesk) => {
          if ((await ragdesk.datastores.list()).length < 3) await ragdesk.datastores.create({ name: `crash ${this.counter}` });
        },
      ];
    }
    return [
      'datastore delete',
      async (ragdesk) => {
        const all = await ragdesk.datastores.list();
        if (all.length > 1) await ragdesk.datastores.delete((this.pick(all) as Datastore).id);
      },
    ];
  }
}

async function lane(ragdesk: Ragdesk, workload: Workload, name: string): Promise<never> {
  for (;;) {
    const [label, op] = workload.nextOp();
    process.stdout.write(`${OP_PREFIX}${name} ${label}\n`);
    try {
      await op(ragdesk);
    } catch (error) {
      // Races between the two callers (a record deleted under the other) are expected; the parent
      // only judges the state left on disk.
      process.stderr.write(`${name} ${label}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/** The first line on stdin. */
function readConfig(): Promise<WorkerConfig> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: process.stdin });
    lines.once('line', (line) => {
      resolve(JSON.parse(line) as WorkerConfig);
      lines.close();
    });
    lines.once('close', () => reject(new Error('stdin closed before a config arrived')));
  });
}

async function main(): Promise<void> {
  // Start-up (module loading, the tokenizer's and embedder's tables) takes a second or two; the
  // harness starts the next worker while it checks the last trial, and sends the config when due.
  await localEmbeddings().embed(['warm up the tables'], { purpose: 'document' });
  process.stdout.write(`${LOADED_LINE}\n`);
  const config = await readConfig();
  const ragdesk = openWorkerRagdesk(config);
  if (config.mode === 'recover') {
    // Killed while it recovers: jobs resume and collections open (rebuilt when stale), as on the
    // first requests of a restarted server. Then it idles until the kill.
    process.stdout.write(`${READY_LINE}\n`);
    setInterval(() => undefined, 60_000);
    await ragdesk.datasources.start();
    for (const datastore of await ragdesk.datastores.list()) {
      await datastore.query({ query: 'harbour lantern', topK: 3 }).catch(() => undefined);
    }
    return;
  }
  await ragdesk.datasources.start();
  if ((await ragdesk.datastores.list()).length === 0) await ragdesk.datastores.create({ name: 'crash' });
  process.stdout.write(`${READY_LINE}\n`);
  const workload = new Workload(config);
  await Promise.race([lane(ragdesk, workload, 'a'), lane(ragdesk, workload, 'b')]);
}

main().catch((error: unknown) => {
  process.stderr.write(`worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
