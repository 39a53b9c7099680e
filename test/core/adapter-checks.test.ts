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
import { exactIndex, memoryStore } from '../../adapters/memory/index.js';
import { sqliteStore } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, migrateStore, RagdeskError, type RagdeskOptions } from '../../src/index.js';
import { tempDir } from '../helpers/setups.js';

type Port = 'store' | 'index' | 'embeddings' | 'chat' | 'files' | 'web';

/** Methods the ports mark optional: an adapter without them is accepted. */
const OPTIONAL: Record<Port, readonly string[]> = {
  store: ['getDatasourceRefs', 'listDatasourceIdsMatching'],
  index: [],
  embeddings: [],
  chat: ['resolveModel'],
  files: ['close'],
  web: ['fetchFile', 'close', 'loadPageIfChanged', 'recrawlSite'],
};

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A complete, working set of real adapters; `close` releases what they hold. */
function realAdapters(kind: 'memory' | 'sqlite' = 'memory'): RagdeskOptions {
  let stores: Pick<RagdeskOptions, 'store' | 'index'> = { store: memoryStore(), index: exactIndex() };
  if (kind === 'sqlite') {
    const temp = tempDir();
    cleanups.push(() => temp.remove());
    stores = { store: sqliteStore({ path: join(temp.dir, 'ragdesk.db') }), index: hnswIndex({ dir: join(temp.dir, 'indexes') }) };
  }
  const options: RagdeskOptions = {
    ...stores,
    embeddings: localEmbeddings(),
    chat: localAnswerer(),
    files: fileLoading({ parser: 'main' }),
    web: webLoader(),
  };
  cleanups.push(async () => {
    await options.index.close();
    await options.store.close();
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

describe.each(['memory', 'sqlite'] as const)('a %s store without a required method', (kind) => {
  const probe = memoryStore();
  const methods = methodsOf(probe).filter((method) => !OPTIONAL.store.includes(method));
  void probe.close();
  // One set of adapters for every case: createRagdesk refuses the copy before using anything.
  let options: RagdeskOptions;
  beforeAll(() => {
    options = realAdapters(kind);
  });
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('the store has the methods this test removes', () => {
    expect(methods).toContain('getDatasources');
    expect(methods.length).toBeGreaterThanOrEqual(45);
  });

  it.each(methods)('is refused at createRagdesk when it lacks %s', async (method) => {
    const error = await creationError({ ...options, store: without(options.store, method) });
    expect(error).toBeInstanceOf(RagdeskError);
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port: 'store', missing: [method] } });
    expect((error as Error).message).toBe(`store adapter lacks ${method}`);
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
    const error = await creationError({ ...options, store: { ...options.store, getDatasourceRefs: 'yes' } as never });
    expect(error).toMatchObject({ code: 'invalid_adapter', details: { port: 'store', malformed: ['getDatasourceRefs'] } });
  });
});

describe('port specification versions', () => {
  const ports: Port[] = ['store', 'index', 'embeddings', 'chat', 'files', 'web'];

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
    const from = memoryStore();
    const to = memoryStore();
    cleanups.push(
      () => from.close(),
      () => to.close(),
    );
    await expect(migrateStore({ from, to: { ...to, specificationVersion: 'v2' } as never })).rejects.toMatchObject({
      code: 'invalid_adapter',
      details: { port: 'to', found: 'v2', expected: 'v1' },
    });
    await expect(migrateStore({ from: without(from, 'listJobs'), to })).rejects.toMatchObject({
      code: 'invalid_adapter',
      details: { port: 'from', missing: ['listJobs'] },
    });
  });
});
