/**
 * Huge and deeply nested input to the library API, and hostile file names. Every refusal is a
 * typed error raised before anything is stored or embedded (checked through a counting embedder and
 * the store), so a 100 MB string costs a length check, not an ingestion. File names are data: they
 * are stored and returned byte for byte, quoted in messages, and never become paths.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { fileLoading } from '../../adapters/loaders/index.js';
import { localAnswerer, localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { MAX_DOCUMENT_CHARS, MAX_UPSERT_CHARS } from '../../src/datastores/schemas.js';
import { createRagdesk, type Datastore, type Ragdesk } from '../../src/index.js';
import { MAX_METADATA_ENTRIES, MAX_METADATA_STRING_CHARS } from '../../src/validation.js';
import { makePdf } from '../../fixtures/pdf-writer.js';
import { countingEmbeddings, tempDir } from '../helpers/setups.js';
import { failure, utf8 } from './helpers.js';

const HUNDRED_MB = 'word '.repeat(20_000_000);

/** A value nested `depth` levels deep, built without recursion. */
function deep(depth: number, leaf: unknown = 'leaf'): Record<string, unknown> {
  let value: unknown = leaf;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value as Record<string, unknown>;
}

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
}

let temp: ReturnType<typeof tempDir>;
let embeddings: ReturnType<typeof countingEmbeddings>;
let ragdesk: Ragdesk;
let datastore: Datastore;

function open(): Ragdesk {
  return createRagdesk({
    ...sqliteStores({ path: join(temp.dir, 'data', 'ragdesk.db') }),
    index: hnswIndex({ dir: join(temp.dir, 'data', 'indexes') }),
    embeddings,
    chat: localAnswerer(),
    files: fileLoading(),
  });
}

beforeEach(async () => {
  temp = tempDir('ragdesk-hostile-');
  embeddings = countingEmbeddings(localEmbeddings());
  ragdesk = open();
  datastore = await ragdesk.datastores.create({ name: 'target' });
  await datastore.upsert([{ text: 'Hostile input must never reach the index. Baseline document.', name: 'baseline' }]);
  embeddings.texts.length = 0;
});

afterEach(async () => {
  await ragdesk.close();
  temp.remove();
});

/** Nothing new was stored or embedded since the baseline document. */
async function expectNothingWritten(): Promise<void> {
  expect(embeddings.texts).toEqual([]);
  expect((await ragdesk.datasources.list(datastore.id)).map((source) => source.name)).toEqual(['baseline']);
}

describe('huge input fails fast with invalid_request and writes nothing', () => {
  it('a 100 MB document text, in upsert and in update', async () => {
    const upsert = await failure(datastore.upsert([{ text: HUNDRED_MB }]));
    expect(upsert.code).toBe('invalid_request');
    expect(upsert.details?.issues).toEqual([{ path: '0.text', message: expect.stringContaining(String(MAX_DOCUMENT_CHARS)) }]);
    const [baseline] = await ragdesk.datasources.list(datastore.id);
    const update = await failure(datastore.update({ id: baseline!.id, text: HUNDRED_MB }));
    expect(update.details?.issues).toEqual([{ path: 'text', message: expect.stringContaining(String(MAX_DOCUMENT_CHARS)) }]);
    await expectNothingWritten();
  }, 20_000);

  it('documents whose text totals more than the per-call limit, and 100,000 documents in one call', async () => {
    const half = 'x'.repeat(MAX_UPSERT_CHARS / 2 + 1);
    const total = await failure(datastore.upsert([{ text: half }, { text: half }]));
    expect(total.message).toContain(`at most ${MAX_UPSERT_CHARS} characters`);
    const many = await failure(datastore.upsert(Array.from({ length: 100_000 }, (_, i) => ({ text: `document ${i}` }))));
    expect(many.details?.issues).toEqual([{ path: '', message: expect.stringContaining('10000') }]);
    await expectNothingWritten();
  }, 20_000);

  it('a 100 MB query in every retrieval mode and in an agent query', async () => {
    for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
      const error = await failure(datastore.query({ query: HUNDRED_MB, mode }));
      expect(error.details?.issues, mode).toEqual([{ path: 'query', message: expect.stringContaining('20000') }]);
    }
    const agent = await ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
    expect((await failure(ragdesk.agents.query(agent.id, { query: HUNDRED_MB }))).code).toBe('invalid_request');
    expect((await failure(ragdesk.agents.openStream(agent.id, { query: HUNDRED_MB }))).code).toBe('invalid_request');
    expect((await failure(ragdesk.agents.create({ name: 'b', description: 'd', systemPrompt: HUNDRED_MB }))).code).toBe('invalid_request');
    expect((await failure(ragdesk.agents.update(agent.id, { description: HUNDRED_MB }))).code).toBe('invalid_request');
    expect((await failure(ragdesk.datastores.create({ name: 'n', description: HUNDRED_MB }))).code).toBe('invalid_request');
    expect(embeddings.texts).toEqual([]);
  }, 20_000);

  it('a 100 MB file is refused before it is stored', async () => {
    const error = await failure(
      ragdesk.datasources.create({
        datastoreId: datastore.id,
        type: 'file',
        file: { bytes: new Uint8Array(100 * 1024 * 1024), fileName: 'huge.txt' },
      }),
    );
    expect(error.code).toBe('payload_too_large');
    await expectNothingWritten();
  }, 20_000);

  it('metadata: 200,000 keys, a long key, a 20,000-character value', async () => {
    const manyKeys: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) manyKeys[`k${i}`] = i;
    const cases = {
      entries: manyKeys,
      key: { ['k'.repeat(300)]: 1 },
      value: { note: 'v'.repeat(MAX_METADATA_STRING_CHARS * 2) },
    };
    for (const [name, metadata] of Object.entries(cases)) {
      const error = await failure(datastore.upsert([{ text: 'with metadata', metadata }]));
      expect(error.code, name).toBe('invalid_request');
      expect(error.details?.issues, name).toEqual([expect.objectContaining({ path: expect.stringMatching(/^0\.metadata/) })]);
    }
    expect((await failure(datastore.upsert([{ text: 'x', metadata: manyKeys }]))).message).toContain(
      `at most ${MAX_METADATA_ENTRIES} entries`,
    );
    await expectNothingWritten();
  }, 30_000);
});

describe('JSON input nested 10,000 deep (and cyclic)', () => {
  it('nested or cyclic metadata is refused (metadata is flat), in upsert, update and datasources', async () => {
    const [baseline] = await ragdesk.datasources.list(datastore.id);
    for (const metadata of [deep(10_000), cyclic(), { list: [deep(10_000)] }]) {
      expect((await failure(datastore.upsert([{ text: 'x', metadata: metadata as never }]))).code).toBe('invalid_request');
      expect((await failure(datastore.update({ id: baseline!.id, text: 'y', metadata: metadata as never }))).code).toBe('invalid_request');
      const file = { bytes: utf8('hello'), fileName: 'a.txt' };
      expect(
        (await failure(ragdesk.datasources.create({ datastoreId: datastore.id, type: 'file', file, metadata: metadata as never }))).code,
      ).toBe('invalid_request');
    }
    await expectNothingWritten();
  }, 20_000);

  it('filters: deep values in known fields are refused, unknown deep fields are ignored (a safe result)', async () => {
    for (const filters of [{ custom_ids: [deep(10_000)] }, { datasource_ids: deep(10_000) }, { custom_ids: cyclic() }]) {
      expect((await failure(datastore.query({ query: 'baseline', filters: filters as never }))).code).toBe('invalid_request');
    }
    for (const filters of [deep(10_000), { custom_ids: [], extra: deep(10_000) }, cyclic()]) {
      const hits = await datastore.query({ query: 'baseline document', filters: filters });
      expect(hits.map((hit) => hit.datasource_name)).toEqual(['baseline']);
    }
    const agent = await ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
    const answer = await ragdesk.agents.query(agent.id, { query: 'baseline document', filters: deep(10_000) });
    expect(answer.sources.map((source) => source.datasource_name)).toEqual(['baseline']);
    // Agent bodies are strict: an unknown field, however deep, is an error, not silently kept.
    expect((await failure(ragdesk.agents.query(agent.id, { query: 'q', extra: deep(10_000) } as never))).code).toBe('invalid_request');
    expect((await failure(ragdesk.agents.create({ name: 'n', description: 'd', extra: cyclic() } as never))).code).toBe('invalid_request');
  }, 20_000);

  it('nested values where strings are expected are refused', async () => {
    expect((await failure(datastore.upsert([{ text: deep(10_000) as never }]))).code).toBe('invalid_request');
    expect((await failure(datastore.query({ query: deep(10_000) as never }))).code).toBe('invalid_request');
    expect((await failure(ragdesk.datastores.get(deep(10_000) as never))).code).toBe('invalid_request');
    expect((await failure(ragdesk.datastores.create(deep(10_000) as never))).code).toBe('invalid_request');
    await expectNothingWritten();
  });
});

describe('file names with path traversal and control characters', () => {
  const NAMES = [
    '../../etc/passwd',
    '..\\..\\windows\\win.ini',
    '/etc/shadow',
    'nul\u0000byte.txt',
    'line\nbreak\r\n.txt',
    'tab\tand\u001b[31mescape.txt',
    'CON',
    '🦜 parrot.txt',
    `${'long-'.repeat(199)}x.txt`,
  ];

  /** Every file under `dir`, relative, sorted. */
  const filesUnder = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
      .sort();

  it('are stored and returned exactly, across a reopen, and never become paths', async () => {
    const before = readdirSync(temp.dir);
    const ids: string[] = [];
    for (const [index, fileName] of NAMES.entries()) {
      const record = await ragdesk.datasources.create({
        datastoreId: datastore.id,
        type: 'file',
        file: { bytes: utf8(`Planted text number ${index} for the file name test.`), fileName },
      });
      expect(record.name).toBe(fileName);
      expect(record.config).toMatchObject({ file_name: fileName });
      ids.push(record.id);
    }
    for (const id of ids) expect((await ragdesk.datasources.waitUntilSettled(id, 20_000)).status).toBe('synched');
    await ragdesk.close();
    ragdesk = open();
    for (const [index, id] of ids.entries()) {
      const record = await ragdesk.datasources.get(id);
      expect(record.name).toBe(NAMES[index]);
      expect(record.config).toMatchObject({ file_name: NAMES[index] });
    }
    const hits = await (await ragdesk.datastores.get(datastore.id)).query({ query: 'Planted text number 3 file name', topK: 20 });
    expect(hits.map((hit) => hit.datasource_name)).toEqual(expect.arrayContaining([NAMES[3]]));
    // Only the store's and the index's own files exist; nothing was created beside the data directory.
    expect(readdirSync(temp.dir)).toEqual(before);
    const files = filesUnder(join(temp.dir, 'data'));
    expect(files.every((file) => file === 'ragdesk.db' || file.startsWith('ragdesk.db-') || file.startsWith('indexes/'))).toBe(true);
    expect(files.join('\n')).not.toMatch(/passwd|shadow|win\.ini|parrot|long-/);
  }, 40_000);

  it('a name over 1,000 characters is refused; a bad file quotes its name escaped in the stored error', async () => {
    const tooLong = await failure(
      ragdesk.datasources.create({
        datastoreId: datastore.id,
        type: 'file',
        file: { bytes: utf8('x'), fileName: 'n'.repeat(1001) },
      }),
    );
    expect(tooLong.details?.issues).toEqual([{ path: 'file.fileName', message: expect.stringContaining('1000') }]);
    const broken = makePdf([['cut short']]).subarray(0, 180);
    const fileName = 'evil\nname\u0000\u001b[2J.pdf';
    const record = await ragdesk.datasources.create({ datastoreId: datastore.id, type: 'file', file: { bytes: broken, fileName } });
    const settled = await ragdesk.datasources.waitUntilSettled(record.id, 20_000);
    expect(settled.status).toBe('error');
    expect(settled.error).toContain(JSON.stringify(fileName));
    // eslint-disable-next-line no-control-regex -- the test asserts no control characters reach the error text
    expect(settled.error).not.toMatch(/[\n\u0000\u001b]/);
  }, 30_000);
});
