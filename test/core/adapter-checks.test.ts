/**
 * `createRagdesk` refuses an adapter that lacks a method of its port, naming the port and the
 * method. The methods tried are those the real adapters have (not the core's own list), so a method
 * the core forgot to check shows up here as an adapter that was accepted without it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { fileLoading } from '../../adapters/loaders/index.js';
import { localAnswerer, localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStore, memoryStores } from '../../adapters/memory/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, migrateStore, RagdeskError, type RagdeskOptions } from '../../src/index.js';
import { tempDir } from '../helpers/setups.js';

type Port = 'retrieval' | 'accounts' | 'index' | 'embeddings' | 'chat' | 'files' | 'web';

/** Methods the ports mark optional: an adapter without them is accepted. */
const OPTIONAL: Record<Port, readonly string[]> = {
  retrieval: ['getDatasourceRefs', 'listDatasourceIdsMatching', 'pageDatasources', 'pageChunks', 'searchTextLists'],
  accounts: [],
  index: ['similarities'],
  embeddings: [],
  chat: ['resolveModel', 'models'],
  files: ['close'],
  web: ['fetchFile', 'close', 'loadPageIfChanged', 'recrawlSite'],
};

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A complete, working set of real adapters; `close` releases what they hold. */
function realAdapters(kind: 'memory' | 'sqlite' = 'memory') {
  let stores: Pick<Required<RagdeskOptions>, 'retrieval' | 'accounts' | 'index'> = { ...memoryStores(), index: exactIndex() };
  if (kind === 'sqlite') {
    const temp = tempDir();
    cleanups.push(() => temp.remove());
    stores = { ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }), index: hnswIndex({ dir: join(temp.dir, 'indexes') }) };
  }
  const options = {
    ...stores,
    embeddings: localEmbeddings(),
    chat: localAnswerer(),
    files: fileLoading({ parser: 'main' }),
    web: webLoader(),
  };
  cleanups.push(async () => {
    await options.index.close();
    await options.retrieval.close();
    await options.accounts.close();
  });
  return options;
}

/** The adapter's own methods, whatever the core lists. */
function methodsOf(adapter: object): string[] {
  return Object.entries(adapter)
    .filter(([, value]) => typeof value === 'function')
    .map(([key]) => key);
}

function without<T extends object>(adapter: T, method: string): T {
  const copy: Record<string, unknown> = { ...(adapter as Record<string, unknown>) };
  delete copy[method];
  return copy as T;
}

/** The error `createRagdesk` throws, or undefined when it accepted the adapters (then closed). */
async function creationError(options: RagdeskOptions): Promise<unknown> {
  try {
    const ragdesk = createRagdesk(options);
    // The instance owns the adapters now; closing it closes them, which the cleanup then repeats (idempotent).
    await ragdesk.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe.each([
  { kind: 'memory', side: 'retrieval', least: 29 },
  { kind: 'memory', side: 'accounts', least: 28 },
  { kind: 'sqlite', side: 'retrieval', least: 29 },
  { kind: 'sqlite', side: 'accounts', least: 28 },
] as const)('a $kind $side store without a required method', ({ kind, side, least }) => {
  const probe = memoryStores();
  const methods = methodsOf(probe[side]).filter((method) => !OPTIONAL[side].includes(method));
  void probe.retrieval.close();
  void probe.accounts.close();
  // One set of adapters for every case: createRagdesk refuses the copy before using anything.
  let options: ReturnType<typeof realAdapters>;
  beforeAll(() => {
    options = realAdapters(kind);
  });
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('the store has the methods this test removes', () => {
    expect(methods).toContain(side === 'retrieval' ? 'getDatasources' : 'listConversationsWithId');
    expect(methods.length).toBeGreaterThanOrEqual(least);
  });

  it.each(methods)('is refused at createRagdesk when it lacks %s', async (method) => {
    const error = await creationError({ ...options, [side]: without(options[side], method) });
    expect(error).toBeInstanceOf(RagdeskError);
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port: side, missing: [method] } });
    expect((error as Error).message).toBe(`${side} adapter lacks ${method}`);
  });
});

describe('the deprecated store option', () => {
  it('accepts one object serving as both stores, and closes it with the instance', async () => {
    const { retrieval, accounts, ...rest } = realAdapters();
    const store = memoryStore();
    const ragdesk = createRagdesk({ ...rest, store });
    expect(ragdesk.adapters).toMatchObject({ retrieval: 'memory', accounts: 'memory' });
    const datastore = await ragdesk.datastores.create({ name: 'Kept' });
    expect(await store.getDatastore(datastore.id)).toMatchObject({ name: 'Kept' });
    await ragdesk.agents.create({ name: 'Helper', description: 'Answers', datastoreIds: [datastore.id] });
    expect(await store.listAgents()).toHaveLength(1);
    await ragdesk.close();
    await expect(store.listAgents()).rejects.toMatchObject({ code: 'closed' });
    await expect(store.getDatastore(datastore.id)).rejects.toMatchObject({ code: 'closed' });
    await Promise.all([retrieval.close(), accounts.close()]);
  });

  it('refuses a store lacking a method of either port, and a store given with the two stores', async () => {
    const { retrieval, accounts, ...rest } = realAdapters();
    const store = memoryStore();
    cleanups.push(() => store.close());
    for (const method of ['listJobs', 'consumeUsage']) {
      const error = await creationError({ ...rest, store: without(store, method) });
      expect(error).toMatchObject({ code: 'invalid_adapter', details: { port: 'store', missing: [method] } });
    }
    expect(await creationError({ ...rest, store, retrieval, accounts })).toMatchObject({
      code: 'invalid_adapter',
      details: { port: 'store' },
    });
  });
});

describe('adapters of the other ports without a required method', () => {
  const ports: Exclude<Port, 'store'>[] = ['index', 'embeddings', 'chat', 'files', 'web'];
  const cases = ports.flatMap((port) => {
    const adapter = realAdapters()[port];
    return methodsOf(adapter as object)
      .filter((method) => !OPTIONAL[port].includes(method))
      .map((method) => ({ port, method }));
  });

  it('every port has methods to remove', () => {
    expect(new Set(cases.map((entry) => entry.port))).toEqual(new Set(ports));
  });

  it.each(cases)('$port without $method is refused', async ({ port, method }) => {
    const options = realAdapters();
    const error = await creationError({ ...options, [port]: without(options[port] as object, method) });
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port, missing: [method] } });
    expect((error as Error).message).toContain(method);
  });
});

describe('optional methods', () => {
  it.each((Object.keys(OPTIONAL) as Port[]).flatMap((port) => OPTIONAL[port].map((method) => ({ port, method }))))(
    '$port without $method is accepted',
    async ({ port, method }) => {
      const options = realAdapters();
      expect(await creationError({ ...options, [port]: without(options[port] as object, method) })).toBeUndefined();
    },
  );

  it('an optional method that is present must be a function', async () => {
    const options = realAdapters();
    const error = await creationError({ ...options, retrieval: { ...options.retrieval, getDatasourceRefs: 'yes' } as never });
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port: 'retrieval', malformed: ['getDatasourceRefs'] } });
  });
});

describe('port specification versions', () => {
  const ports: Port[] = ['retrieval', 'accounts', 'index', 'embeddings', 'chat', 'files', 'web'];

  it('every adapter shipped here declares v1', () => {
    const options = realAdapters();
    for (const port of ports) expect((options[port] as { specificationVersion?: unknown }).specificationVersion, port).toBe('v1');
  });

  it.each(ports)('a %s adapter without specificationVersion is refused, naming the port and the version expected', async (port) => {
    const options = realAdapters();
    const error = await creationError({ ...options, [port]: without(options[port] as object, 'specificationVersion') });
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port, found: null, expected: 'v1' } });
    expect((error as Error).message).toMatch(new RegExp(`^${port} adapter declares no specificationVersion; this ragdesk expects 'v1'`));
  });

  it.each(ports)('a %s adapter for another version is refused, naming both versions', async (port) => {
    const options = realAdapters();
    const error = await creationError({ ...options, [port]: { ...(options[port] as object), specificationVersion: 'v2' } });
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port, found: 'v2', expected: 'v1' } });
    expect((error as Error).message).toBe(`${port} adapter implements port specification 'v2'; this ragdesk expects 'v1'`);
  });

  it('a version that is not a string is reported by its type', async () => {
    const options = realAdapters();
    const error = await creationError({ ...options, index: { ...options.index, specificationVersion: 1 } as never });
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port: 'index', found: 'a number', expected: 'v1' } });
  });
});

describe('migrateStore checks both stores as createRagdesk does', () => {
  it('refuses a target store written for another version before reading anything', async () => {
    const from = memoryStores();
    const to = memoryStores();
    cleanups.push(async () => {
      for (const store of [from.retrieval, from.accounts, to.retrieval, to.accounts]) await store.close();
    });
    await expect(
      migrateStore({ from, to: { ...to, accounts: { ...to.accounts, specificationVersion: 'v2' } } as never }),
    ).rejects.toMatchObject({
      code: 'invalid_adapter',
      details: { port: 'to.accounts', found: 'v2', expected: 'v1' },
    });
    await expect(migrateStore({ from: { ...from, retrieval: without(from.retrieval, 'listJobs') }, to })).rejects.toMatchObject({
      code: 'invalid_adapter',
      details: { port: 'from.retrieval', missing: ['listJobs'] },
    });
    // A deprecated Store serves as both sides.
    const joined = memoryStore();
    cleanups.push(() => joined.close());
    await expect(migrateStore({ from: without(joined, 'listAgents'), to })).rejects.toMatchObject({
      code: 'invalid_adapter',
      details: { port: 'from.accounts', missing: ['listAgents'] },
    });
  });
});
