/**
 * Size limits of one document after parsing: extracted characters, chunks per datasource, columns
 * per table, and the share of a section a repeated CSV header may take. Each ends the sync in
 * `error` naming the limit, with nothing of the document stored or searchable.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { fileLoaders, fileLoading, loadFile, type FileLoadingOptions } from '../../adapters/loaders/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk, type UsageLimits } from '../../src/index.js';
import { makeXlsx } from '../../fixtures/ooxml.js';
import { tempDir } from '../helpers/setups.js';
import { failure, utf8 } from './helpers.js';

function open(dir: string, usage: UsageLimits = {}, files: FileLoadingOptions = {}): Ragdesk {
  return createRagdesk({
    usage,
    ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings: localEmbeddings(),
    files: fileLoading({ parser: 'main', ...files }),
  });
}

const csv = (rows: readonly (readonly string[])[]) => utf8(rows.map((row) => row.join(',')).join('\n'));
const words = (count: number, word = 'LIMITWORD') => Array.from({ length: count }, (_, index) => `${word}${index}.`).join(' ');

describe('per-document limits', () => {
  let temp: ReturnType<typeof tempDir>;
  let ragdesk: Ragdesk;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(async () => {
    await ragdesk.close();
    temp.remove();
  });

  async function upload(bytes: Uint8Array, fileName: string) {
    const datastore = await ragdesk.datastores.create({ name: 'limits' });
    const created = await ragdesk.datasources.create({ type: 'file', datastoreId: datastore.id, file: { bytes, fileName } });
    return { datastore, settled: await ragdesk.datasources.waitUntilSettled(created.id) };
  }

  it('refuses text over usage.maxExtractedChars before chunking it, naming the limit', async () => {
    ragdesk = open(temp.dir, { maxExtractedChars: 5_000 });
    const { datastore, settled } = await upload(utf8(words(1_000)), 'long.txt');
    expect(settled.status).toBe('error');
    expect(settled.error).toMatch(/more than the limit of 5000 \(usage\.maxExtractedChars\)/);
    expect(settled.nbChunks).toBe(0);
    expect(await datastore.query({ query: 'LIMITWORD7', mode: 'lexical' })).toEqual([]);
    // The same cap on text written directly.
    const refused = await failure(datastore.upsert([{ text: words(1_000) }]));
    expect(refused.code).toBe('payload_too_large');
    expect(refused.details).toMatchObject({ reason: 'too_much_text', limit: 5_000 });
  });

  it('stops chunking past usage.maxChunksPerDatasource, storing nothing', async () => {
    ragdesk = open(temp.dir, { maxChunksPerDatasource: 3 });
    const { datastore, settled } = await upload(utf8(words(2_000)), 'many-chunks.txt');
    expect(settled.status).toBe('error');
    expect(settled.error).toMatch(/more than 3 chunks.*usage\.maxChunksPerDatasource/);
    expect(settled.nbChunks).toBe(0);
    expect(await datastore.query({ query: 'LIMITWORD7', mode: 'lexical' })).toEqual([]);
    // Under the limit, the same instance stores it.
    const small = await upload(utf8(words(50)), 'small.txt');
    expect(small.settled.status).toBe('synched');
  });

  it('applies the default limits when usage sets none', async () => {
    ragdesk = open(temp.dir);
    const { settled } = await upload(utf8('x '.repeat(10_000_001)), 'twenty-million.txt');
    expect(settled.status).toBe('error');
    expect(settled.error).toMatch(/more than the limit of 20000000 \(usage\.maxExtractedChars\)/);
  });

  it('refuses too much text inside the parser process, and reads large files through it intact', async () => {
    // Over 1 MiB: the file travels to the parser process through a temporary file, and back.
    ragdesk = open(temp.dir, { maxExtractedChars: 1_500_000 }, { parser: 'worker' });
    const refused = await upload(utf8(words(200_000)), 'two-megabytes.txt');
    expect(refused.settled.status).toBe('error');
    expect(refused.settled.error).toMatch(/more than the limit of 1500000 \(usage\.maxExtractedChars\)/);
    const accepted = await upload(utf8(`${words(100_000, 'SPOOLED')} LASTWORDHERE.`), 'one-megabyte.txt');
    expect(accepted.settled.status).toBe('synched');
    expect((await accepted.datastore.query({ query: 'LASTWORDHERE', mode: 'lexical', topK: 1 }))[0]?.text).toContain('LASTWORDHERE');
  });

  it('refuses a CSV wider than maxTableColumns at its first row, naming the limit', async () => {
    ragdesk = open(temp.dir, {}, { maxTableColumns: 50 });
    const header = Array.from({ length: 60 }, (_, index) => `col${index}`);
    const { settled } = await upload(csv([header, header.map((_, index) => `v${index}`)]), 'wide.csv');
    expect(settled.status).toBe('error');
    expect(settled.error).toMatch(/more columns than the limit of 50 \(maxTableColumns\)/);
    expect(settled.nbChunks).toBe(0);
  });

  it('ends the sync of a CSV over maxCsvCells in error naming the limit, through the parser process', async () => {
    ragdesk = open(temp.dir, {}, { parser: 'worker', maxCsvCells: 5_000 });
    const rows = Array.from({ length: 1_001 }, (_, row) => Array.from({ length: 5 }, (_, column) => `r${row}c${column}`));
    const { settled } = await upload(csv(rows), 'rows.csv');
    expect(settled.status).toBe('error');
    expect(settled.error).toMatch(/more cells than the limit of 5000 \(maxCsvCells\)/);
    expect(settled.nbChunks).toBe(0);
  });
});

describe('table limits in the loaders', () => {
  const loaders = fileLoaders();

  it('refuses a CSV of more cells than maxCsvCells while reading it, naming the limit', async () => {
    // A plausible export (ten columns of short values), 20,001 rows: 200,010 cells.
    const header = 'id,date,customer,product,quantity,price,city,country,status,notes';
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `${i},2024-03-${(i % 28) + 1},C${i % 500},P${i % 30},${i % 17},${i % 99},City,Land,shipped,n${i}`,
    );
    const bytes = utf8([header, ...lines].join('\n'));
    const error = await failure(loadFile(fileLoaders({ maxCsvCells: 200_000 }), { bytes, fileName: 'orders.csv' }));
    expect(error.code).toBe('payload_too_large');
    expect(error.message).toMatch(/more cells than the limit of 200000 \(maxCsvCells\)/);
    expect(error.details).toMatchObject({ reason: 'too_many_cells', maxCells: 200_000 });
    // At the limit it reads; the default is a million cells.
    const document = await loadFile(fileLoaders({ maxCsvCells: 200_010 }), { bytes, fileName: 'orders.csv' });
    expect(document.metadata).toMatchObject({ rows: 20_000 });
    expect((await loadFile(loaders, { bytes, fileName: 'orders.csv' })).metadata).toMatchObject({ rows: 20_000 });
    expect(() => fileLoaders({ maxCsvCells: 0 })).toThrow(/maxCsvCells/);
  });

  it('refuses a 1,000,000-column header by default without reading it all', async () => {
    const header = Array.from({ length: 1_000_000 }, (_, index) => `c${index}`).join(',');
    const started = performance.now();
    const error = await failure(loadFile(loaders, { bytes: utf8(`${header}\n1,2,3\n`), fileName: 'header.csv' }));
    expect(error.code).toBe('payload_too_large');
    expect(error.details).toMatchObject({ reason: 'too_many_columns', maxColumns: 1_000 });
    // Generous: reading the whole header into cells took seconds and gigabytes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses a spreadsheet sheet wider than the limit', async () => {
    const wide = Array.from({ length: 40 }, (_, index) => `h${index}`);
    const bytes = makeXlsx([{ name: 'Wide', rows: [wide, wide] }]);
    const error = await failure(loadFile(fileLoaders({ maxTableColumns: 30 }), { bytes, fileName: 'wide.xlsx' }));
    expect(error.details).toMatchObject({ reason: 'too_many_columns', maxColumns: 30 });
  });

  it('keeps a wide repeated header to half a section, so the text stays near the size of the file', async () => {
    const header = Array.from({ length: 900 }, (_, index) => `column_name_${index}`);
    const rows = Array.from({ length: 300 }, (_, row) => header.map((_, index) => (index < 3 ? `r${row}c${index}` : '')));
    const bytes = csv([header, ...rows]);
    const document = await loadFile(loaders, { bytes, fileName: 'wide-header.csv' });
    const total = document.sections.reduce((sum, section) => sum + section.text.length, 0);
    // The header is whole in the first section, shortened with … in the others.
    expect(document.sections[0]!.text).toContain('column_name_899');
    expect(document.sections[1]!.text).not.toContain('column_name_899');
    expect(document.sections[1]!.text).toMatch(/\| … \|/);
    for (const section of document.sections.slice(1)) {
      const headerPart = section.text.split('\n').slice(0, 2).join('\n');
      expect(headerPart.length).toBeLessThanOrEqual(750);
    }
    // Every row keeps its cells; the repeated header no longer multiplies the text (it was ~50x).
    expect(total).toBeLessThan(bytes.byteLength * 4);
    expect(document.sections.at(-1)!.text).toContain('r299c0');
  });
});
