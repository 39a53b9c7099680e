/**
 * Metadata filter part of the Store conformance suite: `listDatasourceIdsMatching` must answer
 * exactly what the core's reference evaluation (`matchesMetadata`) answers, on random metadata and
 * random filters of every operator, and a patch of a datasource's metadata must change the answer.
 */
import type { RetrievalStore } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { matchesMetadata } from '../filters/metadata-filter.js';
import type { DatasourceRecord, DatastoreRecord, Metadata, MetadataFilter, MetadataValue } from '../ports/records.js';
import { makeDatasource, makeDatastore } from './fixtures.js';
import { seededRandom } from './random.js';
import type { StoreSuiteContext } from './store-harness.js';

/** Keys that break naive path building (dots, quotes, backslashes, brackets, non-ASCII, `$`). */
const KEYS = ['lang', 'year', 'score', 'draft', 'date', 'note', 'a.b', 'q"x', 'back\\slash', '[0]', '日付', '$'];
const STRINGS = ['en', 'fr', 'de', '', 'EN', 'é', '𝔘', '\uffff', '1', 'true', 'null'];
const DATES = ['2019-12-31', '2020-01-01', '2020-01-01T10:00:00Z', '2021-06-15', '2024-02-29T23:59:59.5Z', '2025-01-01'];
const NUMBERS = [-3, -0.5, 0, 1, 1.5, 2, 2020, 2021, 1e9];

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function randomValue(random: Random): MetadataValue {
  const roll = random();
  if (roll < 0.3) return pick(random, STRINGS);
  if (roll < 0.5) return pick(random, DATES);
  if (roll < 0.8) return pick(random, NUMBERS);
  if (roll < 0.93) return random() < 0.5;
  return null;
}

function randomMetadata(random: Random): Metadata {
  const metadata: Metadata = {};
  for (const key of KEYS) if (random() < 0.45) metadata[key] = randomValue(random);
  return metadata;
}

function randomFilter(random: Random, depth: number): MetadataFilter {
  const roll = random();
  if (depth < 3 && roll < 0.12) return { and: [randomFilter(random, depth + 1), randomFilter(random, depth + 1)] };
  if (depth < 3 && roll < 0.24)
    return { or: [randomFilter(random, depth + 1), randomFilter(random, depth + 1), randomFilter(random, depth + 1)] };
  if (depth < 3 && roll < 0.32) return { not: randomFilter(random, depth + 1) };
  const key = pick(random, KEYS);
  const test = random();
  if (test < 0.25) return { key, eq: randomValue(random) };
  if (test < 0.4) return { key, in: [randomValue(random), randomValue(random), randomValue(random)] };
  if (test < 0.5) return { key, exists: random() < 0.7 };
  const dates = random() < 0.35;
  const bound = () => (dates ? pick(random, DATES) : pick(random, NUMBERS));
  const lower = random() < 0.5 ? 'gt' : 'gte';
  const upper = random() < 0.5 ? 'lt' : 'lte';
  const shape = random();
  if (shape < 0.33) return { key, [lower]: bound() };
  if (shape < 0.66) return { key, [upper]: bound() };
  return { key, [lower]: bound(), [upper]: bound() };
}

export function describeMetadataFilterConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('metadata filters', () => {
    let datastore: DatastoreRecord;
    let other: DatastoreRecord;
    let sources: DatasourceRecord[];

    beforeEach(async (test) => {
      if (store().listDatasourceIdsMatching === undefined) {
        test.skip();
        return;
      }
      datastore = makeDatastore({ id: 'ds-meta', name: 'Metadata' });
      other = makeDatastore({ id: 'ds-meta-other', name: 'Other' });
      await store().createDatastore(datastore);
      await store().createDatastore(other);
      const random = seededRandom(40);
      sources = Array.from({ length: 80 }, (_, index) =>
        makeDatasource(datastore, { id: `meta-${index}`, name: `doc ${index}`, metadata: randomMetadata(random) }),
      );
      for (const source of sources) await store().createDatasource(source);
      // The other datastore matches everything: its datasources must never be answered.
      await store().createDatasource(
        makeDatasource(other, { id: 'meta-other', metadata: Object.fromEntries(KEYS.map((key) => [key, 1])) }),
      );
    });

    const matching = async (filter: MetadataFilter) => [...(await store().listDatasourceIdsMatching!(datastore.id, filter))].sort();
    const expected = (filter: MetadataFilter) =>
      sources
        .filter((source) => matchesMetadata(filter, source.metadata))
        .map((source) => source.id)
        .sort();

    it('answers every random filter as the reference evaluation does', async () => {
      const random = seededRandom(4040);
      let nonEmpty = 0;
      for (let round = 0; round < 300; round++) {
        const filter = randomFilter(random, 0);
        const want = expected(filter);
        if (want.length > 0 && want.length < sources.length) nonEmpty++;
        expect({ filter, ids: await matching(filter) }).toEqual({ filter, ids: want });
      }
      // The random filters must discriminate, or the comparison proves little.
      expect(nonEmpty).toBeGreaterThan(150);
    });

    it('keeps types apart: 1 is not true, not "1"; null is a value; missing keys pass only not and exists: false', async () => {
      await store().createDatasource(makeDatasource(datastore, { id: 'typed-1', metadata: { t: 1 } }));
      await store().createDatasource(makeDatasource(datastore, { id: 'typed-true', metadata: { t: true } }));
      await store().createDatasource(makeDatasource(datastore, { id: 'typed-str', metadata: { t: '1' } }));
      await store().createDatasource(makeDatasource(datastore, { id: 'typed-null', metadata: { t: null } }));
      const typed = async (filter: MetadataFilter) => (await matching(filter)).filter((id) => id.startsWith('typed-'));
      expect(await typed({ key: 't', eq: 1 })).toEqual(['typed-1']);
      expect(await typed({ key: 't', eq: true })).toEqual(['typed-true']);
      expect(await typed({ key: 't', eq: '1' })).toEqual(['typed-str']);
      expect(await typed({ key: 't', eq: null })).toEqual(['typed-null']);
      expect(await typed({ key: 't', exists: true })).toEqual(['typed-1', 'typed-null', 'typed-str', 'typed-true']);
      expect(await typed({ key: 't', gte: 0 })).toEqual(['typed-1']);
      expect((await matching({ not: { key: 't', exists: true } })).length).toBe(sources.length);
    });

    it('follows a metadata patch', async () => {
      const filter: MetadataFilter = { key: 'tenant', eq: 'acme' };
      expect(await matching(filter)).toEqual([]);
      await store().updateDatasource('meta-3', { metadata: { tenant: 'acme' } });
      expect(await matching(filter)).toEqual(['meta-3']);
    });
  });
}
