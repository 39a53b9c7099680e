/**
 * bench:chunk-pages — one page of a big datasource's chunks (`GET /api/datasources/{id}/chunks`),
 * as the core cut it before stores paged (`listChunks`, then a slice) and as the stores page it
 * (`pageChunks`: LIMIT/OFFSET over the (datasource, position) index, no vectors). One SQLite
 * file, one 20,000-chunk datasource with 384-dimension vectors; each way timed `--runs` times
 * in turn in the same run, unfiltered (a page in the middle) and with a text filter.
 *
 *   npm run bench:chunk-pages -- [--chunks 20000] [--runs 15] [--page-size 50]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStores } from '../adapters/sqlite/index.js';
import type { ChunkRecord } from '../src/ports/records.js';
import { contentHash, makeDatasource, makeDatastore, textVector } from '../src/testing/fixtures.js';
import { flags, latencySummary, printTable, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const CHUNKS = Number(args.get('chunks') ?? 20_000);
const RUNS = Number(args.get('runs') ?? 15);
const PAGE = Number(args.get('page-size') ?? 50);
const DIMENSIONS = 384;

const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-chunk-pages-'));
const { retrieval, accounts } = sqliteStores({ path: join(dir, 'ragdesk.db') });
try {
  const datastore = makeDatastore({ name: 'Big', embeddingDimensions: DIMENSIONS });
  await retrieval.createDatastore(datastore);
  const source = makeDatasource(datastore, { name: 'big.md' });
  await retrieval.createDatasource(source);
  const chunks: ChunkRecord[] = Array.from({ length: CHUNKS }, (_, position) => {
    const text = `Section ${position} of the big document${position % 997 === 0 ? ', about a zebra crossing' : ''}: ${'words '.repeat(60)}`;
    const hash = contentHash(text);
    return {
      id: `big#${position}`,
      datastoreId: datastore.id,
      datasourceId: source.id,
      customId: null,
      position,
      text,
      tokenCount: 70,
      charOffset: position * 400,
      hash,
      pageNumber: null,
      metadata: {},
      vector: textVector(text, DIMENSIONS),
    };
  });
  await retrieval.replaceChunks(source.id, chunks);
  const pageChunks = retrieval.pageChunks?.bind(retrieval);
  if (!pageChunks) throw new Error('the SQLite store has no pageChunks');

  const middle = Math.floor(CHUNKS / 2);
  const ways = {
    'core slice (listChunks)': async (filter?: string) => {
      const all = await retrieval.listChunks(source.id);
      const needle = filter?.toLocaleLowerCase();
      const matching = needle ? all.filter((chunk) => chunk.text.toLocaleLowerCase().includes(needle)) : all;
      return { rowsRead: all.length, page: matching.slice(filter ? 0 : middle, (filter ? 0 : middle) + PAGE).length };
    },
    'store page (pageChunks)': async (filter?: string) => {
      const result = await pageChunks(source.id, { offset: filter ? 0 : middle, limit: PAGE, ...(filter ? { textContains: filter } : {}) });
      // Unfiltered: the page's rows (the total comes from the index). Filtered: every candidate's text, then the page.
      return { rowsRead: filter ? CHUNKS + result.items.length : result.items.length, page: result.items.length };
    },
  };

  const rows: Row[] = [];
  const medians: Record<string, number> = {};
  for (const filter of [undefined, 'zebra']) {
    const samples = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
    const reads = new Map<string, { rowsRead: number; page: number }>();
    for (let run = 0; run < RUNS; run++) {
      // Interleaved, so machine load falls on both ways alike.
      for (const [name, way] of Object.entries(ways)) {
        const started = performance.now();
        reads.set(name, await way(filter));
        samples.get(name)!.push(performance.now() - started);
      }
    }
    for (const [name, times] of samples) {
      const summary = latencySummary(times);
      const key = `${filter ? 'filtered' : 'page'}: ${name}`;
      medians[key] = summary.p50;
      rows.push({
        query: filter ? `q=${filter}, first page` : `offset ${middle}, limit ${PAGE}`,
        way: name,
        'rows read': reads.get(name)!.rowsRead,
        'rows answered': reads.get(name)!.page,
        'p50 ms': Number(summary.p50.toFixed(2)),
        'p99 ms': Number(summary.p99.toFixed(2)),
      });
    }
  }
  printTable(`One page of a ${CHUNKS}-chunk datasource (SQLite, ${DIMENSIONS}-dim vectors, ${RUNS} runs each, interleaved)`, rows);
  const ratio = (after: string, before: string) => Number(((medians[after] ?? 0) / Math.max(1e-9, medians[before] ?? 1)).toFixed(4));
  writeResult('chunk-pages', {
    chunks: CHUNKS,
    runs: RUNS,
    pageSize: PAGE,
    rows,
    storeOverCore: {
      page: ratio('page: store page (pageChunks)', 'page: core slice (listChunks)'),
      filtered: ratio('filtered: store page (pageChunks)', 'filtered: core slice (listChunks)'),
    },
  });
} finally {
  await retrieval.close();
  await accounts.close();
  rmSync(dir, { recursive: true, force: true });
}
