/**
 * Errors that cross copies of the package. An app can end up with two copies of ragdesk in its
 * node_modules (an adapter package built against another version); the errors of the other copy are
 * instances of another `RagdeskError` class, so `instanceof` misses them and a `conflict` answered
 * 500. The second copy here is the built package copied into its own folder with its own
 * package.json, the way npm installs a nested copy, and loaded as a separate module graph.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { fileLoading } from '../../adapters/loaders/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import {
  createRagdesk,
  isRagdeskError,
  RagdeskError,
  type FileLoading,
  type Ragdesk,
  type Store,
  type VectorIndex,
} from '../../src/index.js';
import { startServer, type RunningServer } from '../http/servers.js';
import { DIST, ROOT } from '../reliability/compiled.js';

type Core = typeof import('../../src/index.js');
type Memory = typeof import('../../adapters/memory/index.js');

let copyDir: string;
let copy: Core & Memory;

beforeAll(async () => {
  // Inside the project, so the copy's bare imports (zod, gpt-tokenizer, ...) resolve to the project's node_modules.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  copyDir = mkdtempSync(join(ROOT, '.tmp', 'second-copy-'));
  const packageDir = join(copyDir, 'node_modules', 'ragdesk');
  cpSync(join(DIST, 'src'), join(packageDir, 'dist', 'src'), { recursive: true });
  // The memory adapter, the adapter kit and the bm25 engine it imports.
  for (const adapter of ['memory', 'kit', 'bm25']) {
    cpSync(join(DIST, 'adapters', adapter), join(packageDir, 'dist', 'adapters', adapter), { recursive: true });
  }
  writeFileSync(join(packageDir, 'package.json'), JSON.stringify({ name: 'ragdesk', version: '0.0.0-second-copy', type: 'module' }));
  const load = (path: string) => import(pathToFileURL(join(packageDir, 'dist', path)).href);
  copy = { ...((await load('src/index.js')) as Core), ...((await load('adapters/memory/index.js')) as Memory) };
});

afterAll(() => {
  rmSync(copyDir, { recursive: true, force: true });
});

describe('the second copy', () => {
  it('has its own RagdeskError class, which instanceof does not recognise', () => {
    expect(copy.RagdeskError).not.toBe(RagdeskError);
    const foreign = new copy.RagdeskError('conflict', 'taken');
    // eslint-disable-next-line no-restricted-syntax -- the point: instanceof misses the other copy's errors
    expect(foreign instanceof RagdeskError).toBe(false);
  });

  it('is recognised both ways by isInstance (and isRagdeskError)', () => {
    const foreign = new copy.RagdeskError('not_found', 'gone');
    expect(RagdeskError.isInstance(foreign)).toBe(true);
    expect(isRagdeskError(foreign)).toBe(true);
    expect(copy.RagdeskError.isInstance(new RagdeskError('conflict', 'taken'))).toBe(true);
  });

  it('isInstance refuses look-alikes: no marker, or a marker without a string code', () => {
    expect(RagdeskError.isInstance({ name: 'RagdeskError', code: 'conflict', status: 409, message: 'x' })).toBe(false);
    expect(RagdeskError.isInstance(Object.assign(new Error('x'), { code: 'conflict', status: 409 }))).toBe(false);
    const marked = new RagdeskError('conflict', 'x');
    Object.defineProperty(marked, 'code', { value: 42 });
    expect(RagdeskError.isInstance(marked)).toBe(false);
    expect(RagdeskError.isInstance(null)).toBe(false);
    expect(RagdeskError.isInstance('conflict')).toBe(false);
  });

  it('keeps the marker out of what is serialised and compared', () => {
    const error = new RagdeskError('conflict', 'taken', { details: { id: 'a' } });
    expect(Object.getOwnPropertySymbols(error)).toEqual([Symbol.for('ragdesk.error')]);
    expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
    expect(JSON.stringify(error)).toBe('{"error":{"code":"conflict","message":"taken","details":{"id":"a"}}}');
  });
});

describe("the second copy's adapters under this copy's core and HTTP handler", () => {
  let ragdesk: Ragdesk;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    const store: Store = copy.memoryStore();
    const index: VectorIndex = copy.exactIndex();
    // A store and an index of the other copy, failing the way adapters do: with their own RagdeskError.
    const createDatastore = store.createDatastore.bind(store);
    store.createDatastore = async (record) => {
      if (record.name !== 'taken') return createDatastore(record);
      throw new copy.RagdeskError('conflict', 'datastore name taken in the backend', { details: { name: record.name } });
    };
    index.query = async (datastoreId) => {
      throw new copy.RagdeskError('not_found', `no vectors for ${datastoreId}`, { details: { datastoreId } });
    };
    ragdesk = createRagdesk({ store, index, embeddings: localEmbeddings() });
    key = (await ragdesk.keys.create({ ownerId: 'acme', scopes: ['admin'] })).key;
    server = await startServer('node:http', createHttpHandler(ragdesk, { logger: { error: () => undefined } }));
  });

  afterAll(async () => {
    await server.close();
    await ragdesk.close();
  });

  async function call(method: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${server.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  it("a store's conflict answers 409 with its code, message and details", async () => {
    const response = await call('POST', '/api/datastores', { name: 'taken' });
    expect(response).toEqual({
      status: 409,
      body: { error: { code: 'conflict', message: 'datastore name taken in the backend', details: { name: 'taken' } } },
    });
  });

  it("an index's not_found answers 404", async () => {
    const created = await call('POST', '/api/datastores', { name: 'kb' });
    expect(created.status).toBe(200);
    const id = (created.body as { id: string }).id;
    const response = await call('POST', `/api/datastores/${id}/query`, { query: 'tides', mode: 'vector' });
    expect(response).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: `no vectors for ${id}`, details: { datastoreId: id } } },
    });
  });
});

describe("the second copy's errors in sync jobs", () => {
  let ragdesk: Ragdesk;
  /** Errors the file loader throws on its next loads, one per load. */
  const failures: Error[] = [];

  beforeAll(() => {
    const real = fileLoading({ parser: 'main' });
    const files: FileLoading = {
      ...real,
      load: async (file) => {
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
        return real.load(file);
      },
    };
    const store: Store = copy.memoryStore();
    const index: VectorIndex = copy.exactIndex();
    ragdesk = createRagdesk({ store, index, embeddings: localEmbeddings(), files, jobs: { retry: { baseDelayMs: 10 } } });
  });

  afterEach(() => {
    failures.length = 0;
  });

  afterAll(async () => {
    await ragdesk.close();
  });

  async function syncFile(): Promise<{ status: string; error: string | null; seen: string[] }> {
    const datastore = await ragdesk.datastores.create({ name: 'files' });
    const seen: string[] = [];
    ragdesk.datasources.events.on('status', (event) => seen.push(event.to));
    const source = await ragdesk.datasources.create({
      type: 'file',
      datastoreId: datastore.id,
      file: { bytes: new TextEncoder().encode('Ocean tides follow the moon and the sun.'), fileName: 'tides.txt' },
    });
    const settled = await ragdesk.datasources.waitUntilSettled(source.id);
    return { status: settled.status, error: settled.error, seen };
  }

  it('a usage_limit ends the sync in usage_limit_reached, not error', async () => {
    failures.push(new copy.RagdeskError('usage_limit', 'the backend quota is spent'));
    expect(await syncFile()).toMatchObject({ status: 'usage_limit_reached', error: 'the backend quota is spent' });
  });

  it('a retryable failure is retried, and the sync then succeeds', async () => {
    failures.push(new copy.RagdeskError('upstream_timeout', 'the parser service timed out', { retryable: true }));
    const result = await syncFile();
    expect(result.status).toBe('synched');
    expect(result.seen).toContain('pending');
  });
});
