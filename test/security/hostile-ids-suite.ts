/**
 * The suite behind hostile-ids.test.ts and hostile-ids-postgres.test.ts: ids, names and queries that
 * are SQL, FTS5 or tsquery syntax (`"`, `*`, `NEAR(`, `-`, `:`, `^`, `'; DROP TABLE ...`, NUL),
 * through every library call that takes an id or a query. Each is data: a lookup of a
 * hostile id is `not_found`, a hostile custom id filters exactly its own documents, a hostile query
 * returns results or nothing, and every table is intact afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Datastore, Ragdesk } from '../../src/index.js';
import { failure, HOSTILE_STRINGS } from './helpers.js';

export interface Opened {
  ragdesk: Ragdesk;
  close(): Promise<void>;
}

/** Hostile strings that are valid ids (non-empty); NUL is covered separately: Postgres text cannot hold it. */
const IDS = HOSTILE_STRINGS.filter((value) => value.length > 0 && !value.includes('\u0000'));

export function hostileIdSuite(name: string, open: () => Promise<Opened>): void {
  describe(`hostile ids and queries on ${name}`, () => {
    let opened: Opened;
    let ragdesk: Ragdesk;
    let datastore: Datastore;
    const sourceOf = new Map<string, string>();

    beforeAll(async () => {
      opened = await open();
      ragdesk = opened.ragdesk;
      datastore = await ragdesk.datastores.create({ name: 'hostile' });
      const { ids } = await datastore.upsert(
        IDS.map((id, index) => ({
          text: `Sample ${index} about harbours and tides, planted ZEBRA${index}. Raw: ${id}`,
          name: id,
          custom_id: id,
        })),
      );
      ids.forEach((sourceId, index) => sourceOf.set(IDS[index] as string, sourceId));
    }, 60_000);
    afterAll(async () => {
      await opened?.close();
    });

    it('queries that are query syntax return results or nothing, in every mode, never an error', async () => {
      for (const query of HOSTILE_STRINGS) {
        if (query.trim() === '') {
          expect((await failure(datastore.query({ query }))).code).toBe('invalid_request'); // blank, like ''
          continue;
        }
        for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
          const hits = await datastore.query({ query: `${query} `.repeat(3), mode, topK: 5 });
          expect(Array.isArray(hits), `${mode} ${JSON.stringify(query)}`).toBe(true);
        }
        // Query syntax is read as words: `'; DROP TABLE chunks; --` finds the document holding those words too.
        const planted = await datastore.query({ query: `ZEBRA7 ${query}`, mode: 'lexical', topK: 3 });
        expect(
          planted.map((hit) => hit.datasource_id),
          JSON.stringify(query),
        ).toContain(sourceOf.get(IDS[7] as string));
      }
    }, 60_000);

    it('a hostile custom id filters exactly its own document; unknown datasource ids match nothing', async () => {
      for (const id of IDS) {
        for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
          const hits = await datastore.query({ query: 'harbours tides sample planted', mode, topK: 50, filters: { custom_ids: [id] } });
          expect(
            hits.map((hit) => hit.datasource_id),
            `${mode} ${JSON.stringify(id)}`,
          ).toEqual([sourceOf.get(id)]);
          expect(await datastore.query({ query: 'harbours', mode, filters: { datasource_ids: [id] } })).toEqual([]);
        }
      }
    }, 60_000);

    it('get, update, delete and sync by a hostile id are not_found', async () => {
      for (const id of [...IDS, '\u0000', 'a\u0000b']) {
        const label = JSON.stringify(id);
        if (id.includes('\u0000')) {
          // Postgres text cannot hold NUL: that adapter answers invalid_request, the others not_found.
          for (const call of [
            () => ragdesk.datastores.get(id),
            () => ragdesk.datasources.get(id),
            () => ragdesk.agents.get(id),
            () => ragdesk.keys.revoke(id),
          ]) {
            expect(['not_found', 'invalid_request'], label).toContain((await failure(call)).code);
          }
          continue;
        }
        expect((await failure(ragdesk.datastores.get(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datastores.update(id, { name: 'x' }))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datastores.delete(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datasources.get(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datasources.list(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datasources.history(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datasources.sync(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.datasources.delete(id))).code, label).toBe('not_found');
        expect((await failure(datastore.update({ id, text: 'replacement' }))).code, label).toBe('not_found');
        expect((await failure(ragdesk.agents.get(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.agents.delete(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.agents.query(id, { query: 'hello' }))).code, label).toBe('not_found');
        expect((await failure(ragdesk.keys.revoke(id))).code, label).toBe('not_found');
        expect((await failure(ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [id] }))).code, label).toBe('not_found');
      }
    }, 60_000);

    it('hostile owner ids, names and conversation ids are stored and matched literally', async () => {
      for (const id of IDS.slice(0, 12)) {
        const owned = await ragdesk.datastores.create({ name: id, description: id }, { ownerId: id });
        expect((await ragdesk.datastores.list({ ownerId: id })).map((store) => [store.id, store.name])).toEqual([[owned.id, id]]);
        const agent = await ragdesk.agents.create({ name: id, description: id, datastoreIds: [datastore.id] });
        const first = await ragdesk.agents.query(agent.id, { query: `ZEBRA3 ${id}`, conversationId: id, visitorId: id });
        expect(first.conversationId).toBe(id);
        expect(first.visitorId).toBe(id);
        const second = await ragdesk.agents.query(agent.id, { query: 'and tides?', conversationId: id, visitorId: id });
        expect(second.conversationId).toBe(id);
        await ragdesk.agents.delete(agent.id);
      }
    }, 60_000);

    it('every table is intact afterwards', async () => {
      expect(await ragdesk.datasources.list(datastore.id)).toHaveLength(IDS.length);
      expect((await ragdesk.datastores.list()).length).toBeGreaterThanOrEqual(13);
      const hits = await datastore.query({ query: 'ZEBRA12 planted', mode: 'lexical' });
      expect(hits[0]?.datasource_id).toBe(sourceOf.get(IDS[12] as string));
    });
  });
}
