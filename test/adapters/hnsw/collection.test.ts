import { afterEach, describe, expect, it } from 'vitest';
import { Collection } from '../../../adapters/hnsw/collection/collection.js';
import { headerContent, labelsOfHeader } from '../../../adapters/hnsw/collection/header-entries.js';
import { LabelTable } from '../../../adapters/hnsw/collection/label-table.js';
import type { IndexHeader } from '../../../adapters/hnsw/files/persistence.js';
import { GraphThread } from '../../../adapters/hnsw/graph/graph-thread.js';
import { PackedStrings } from '../../../adapters/kit/packed-strings.js';
import type { IndexEntry } from '../../../src/ports/index.js';
import { clusteredVectors } from '../../../src/testing/random.js';

const IDENTITY = { datastoreId: 'd', model: 'm', dimensions: 8 };

const entry = (id: string, datasourceId: string, customId: string | null = null) => ({ id, datasourceId, customId });

function liveIds(table: LabelTable): (string | undefined)[] {
  return [...table.labels()].map((label) => table.idOf(label));
}

/** A header as persistence.ts would read it back, around the content `headerContent` gives. */
function asHeader(table: LabelTable): IndexHeader {
  return {
    format: 'ragdesk-hnsw',
    version: 4,
    binary: { file: 'x', bytes: 0, sha256: '' },
    ...headerContent(table, IDENTITY, 7, 3),
  };
}

describe('the hnsw collection: labels', () => {
  it('gives new ids new labels, keeps an upserted id on its label and never hands a removed label out again', () => {
    const table = new LabelTable(() => undefined);
    expect(table.place(entry('a', 's1'))).toEqual({ label: 0, update: false });
    expect(table.place(entry('b', 's1', 'u1'))).toEqual({ label: 1, update: false });
    expect(table.place(entry('a', 's2'))).toEqual({ label: 0, update: true });
    expect(table.datasourceName(table.datasourceAt(0))).toBe('s2');
    expect(table.remove('b')).toBe(1);
    expect(table.remove('b')).toBeUndefined();
    expect(table.place(entry('b', 's1'))).toEqual({ label: 2, update: false });
    expect(liveIds(table)).toEqual(['a', 'b']);
    expect(table.idOf(1)).toBeUndefined();
    expect(table.datasourceAt(1)).toBe(-1);
    expect(table.count).toBe(2);
    expect(table.nextLabel).toBe(3);
  });

  it('counts live entries per datasource and custom id, and forgets a name once nothing uses it', () => {
    const table = new LabelTable(() => undefined);
    table.place(entry('a', 's1', 'u1'));
    table.place(entry('b', 's1', 'u1'));
    table.place(entry('c', 's2', null));
    const s1 = table.datasourceNumber('s1');
    expect(table.datasourceCount(s1)).toBe(2);
    expect(table.customIdCount(table.customIdNumber('u1'))).toBe(2);
    table.remove('a');
    table.remove('b');
    expect(table.datasourceNumber('s1')).toBe(-1);
    expect(table.customIdNumber('u1')).toBe(-1);
    expect(table.datasourceCount(s1)).toBe(0);
    table.place(entry('d', 's1'));
    // A new number: the old one may still sit in a table a search reads.
    expect(table.datasourceNumber('s1')).not.toBe(s1);
    expect(table.datasourceCount(table.datasourceNumber('s1'))).toBe(1);
  });

  it('writes a header of live labels and names only, and a table loaded from it answers as the original', () => {
    const table = new LabelTable(() => undefined);
    table.place(entry('a', 'gone', 'u-gone'));
    table.place(entry('b', 's1', 'u1'));
    table.place(entry('c', 's2'));
    table.remove('a');
    const header = asHeader(table);
    expect(header.datasourceIds.toArray()).toEqual(['s1', 's2']);
    expect(header.customIds.toArray()).toEqual(['u1']);
    expect(header.entries.ids.toArray()).toEqual(['', 'b', 'c']);
    expect([...header.entries.datasources]).toEqual([-1, 0, 1]);
    expect([...header.entries.customIds]).toEqual([-1, 0, -1]);
    expect(header).toMatchObject({ sequence: 7, generation: 3, nextLabel: 3, datastoreId: 'd' });

    const loaded = new LabelTable(() => undefined);
    loaded.adopt(labelsOfHeader(header));
    expect(liveIds(loaded)).toEqual(['b', 'c']);
    expect(loaded.count).toBe(2);
    expect(loaded.datasourceCount(loaded.datasourceNumber('s2'))).toBe(1);
    expect(loaded.customIdCount(loaded.customIdNumber('u1'))).toBe(1);
    expect(loaded.datasourceNumber('gone')).toBe(-1);
    // Mutations after a load: the ids come out of the packed list, labels continue after the header's.
    expect(loaded.place(entry('b', 's2'))).toEqual({ label: 1, update: true });
    expect(loaded.place(entry('e', 's1'))).toEqual({ label: 3, update: false });
    expect(loaded.datasourceName(loaded.datasourceAt(3))).toBe('s1');
    expect(loaded.datasourceCount(loaded.datasourceNumber('s2'))).toBe(2);
  });

  it('keeps the first label of an id a hand-edited header names twice and drops the others from the graph', () => {
    const header = {
      nextLabel: 3,
      datasourceIds: PackedStrings.of(['s']),
      customIds: PackedStrings.of([]),
      entries: { ids: PackedStrings.of(['a', 'b', 'a']), datasources: Int32Array.of(0, 0, 0), customIds: Int32Array.of(-1, -1, -1) },
    } as unknown as IndexHeader;
    const dropped: number[] = [];
    const table = new LabelTable((label) => dropped.push(label));
    table.adopt(labelsOfHeader(header));
    expect(table.count).toBe(3);
    expect(table.remove('a')).toBe(0);
    expect(dropped).toEqual([2]);
    expect(liveIds(table)).toEqual(['b']);
    expect(table.datasourceCount(table.datasourceNumber('s'))).toBe(1);
  });

  it('finds the label of an id in a loaded table from its packed ids, without decoding them', () => {
    const table = new LabelTable(() => undefined);
    // Enough ids for hash collisions; some beyond ASCII; one removed before the header is written.
    const ids = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? `é-${i}-文書` : `chunk-${i}`));
    for (const id of ids) table.place(entry(id, `s${ids.indexOf(id) % 5}`));
    table.remove('chunk-1');
    const dropped: number[] = [];
    const loaded = new LabelTable((label) => dropped.push(label));
    loaded.adopt(labelsOfHeader(asHeader(table)));
    ids.forEach((id, label) => expect(loaded.labelOf(id), id).toBe(id === 'chunk-1' ? undefined : label));
    expect(loaded.labelOf('chunk-3000')).toBeUndefined();
    expect(loaded.labelOf('')).toBeUndefined();
    // A mutation decodes the ids; the answers stay the same.
    loaded.remove('chunk-2');
    expect(loaded.labelOf('chunk-2')).toBeUndefined();
    expect(loaded.labelOf('chunk-4')).toBe(4);
    expect(dropped).toEqual([]);
  });

  it('answers the first label of an id a hand-edited header names twice, before and after a mutation', () => {
    const header = {
      nextLabel: 3,
      datasourceIds: PackedStrings.of(['s']),
      customIds: PackedStrings.of([]),
      entries: { ids: PackedStrings.of(['a', 'b', 'a']), datasources: Int32Array.of(0, 0, 0), customIds: Int32Array.of(-1, -1, -1) },
    } as unknown as IndexHeader;
    const dropped: number[] = [];
    const table = new LabelTable((label) => dropped.push(label));
    table.adopt(labelsOfHeader(header));
    expect(table.labelOf('a')).toBe(0);
    // Looking up did not build the id map (which drops the later duplicate).
    expect(dropped).toEqual([]);
    table.place(entry('c', 's'));
    expect(dropped).toEqual([2]);
    expect(table.labelOf('a')).toBe(0);
  });

  it('refuses a header whose entry names a datasource or custom id its tables do not have', () => {
    const header = {
      nextLabel: 1,
      datasourceIds: PackedStrings.of(['s']),
      customIds: PackedStrings.of([]),
      entries: { ids: PackedStrings.of(['a']), datasources: Int32Array.of(0), customIds: Int32Array.of(0) },
    } as unknown as IndexHeader;
    expect(() => labelsOfHeader(header)).toThrow('header entry of label 0 is out of range');
  });
});

describe('the hnsw collection: its graph', () => {
  const threads: GraphThread[] = [];
  afterEach(async () => {
    await Promise.all(threads.splice(0).map((thread) => thread.close()));
  });

  function entries(count: number, datasource: (i: number) => string): IndexEntry[] {
    const vectors = clusteredVectors({ count, dimensions: IDENTITY.dimensions, clusters: 4, seed: 3 });
    return vectors.map((vector, i) => ({ id: `c${i}`, vector, datasourceId: datasource(i), customId: null }));
  }

  it('finds what was upserted, within a datasource filter, and no longer what was removed', async () => {
    const thread = new GraphThread(1);
    threads.push(thread);
    const collection = Collection.empty(IDENTITY, { m: 16, efConstruction: 100, initialCapacity: 8 }, thread);
    const data = entries(200, (i) => (i % 10 === 0 ? 'rare' : 'common'));
    expect(collection.upsert(data)).toBe(200);
    const probe = data[10]!;
    const best = await collection.search(probe.vector, 1, 50, null);
    expect(collection.idOf(best.labels[0]!)).toBe('c10');

    const rare = collection.datasourceNumber('rare');
    const filtered = await collection.search(data[1]!.vector, 20, 200, { sources: [rare], tenants: null, exact: true });
    const ids = [...filtered.labels].map((label) => collection.idOf(label));
    expect(ids.sort()).toEqual(
      data
        .filter((item) => item.datasourceId === 'rare')
        .map((item) => item.id)
        .sort(),
    );

    expect(collection.remove(['c10', 'unknown'])).toBe(1);
    const after = await collection.search(probe.vector, 5, 50, null);
    expect([...after.labels].map((label) => collection.idOf(label))).not.toContain('c10');
    expect(collection.count).toBe(199);
    expect(collection.datasourceCount(rare)).toBe(19);
    expect(collection.toHeaderContent(1).entries.ids.at(10)).toBe('');
  });
});
