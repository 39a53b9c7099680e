import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import type { Datastore, DocumentFragment } from '../../src/index.js';
import { SETUPS, tempDir } from '../helpers/setups.js';

const DOCS = [
  'Tides are caused by the gravitational pull of the moon and the sun on the oceans.',
  'A volcano erupts when magma rises through the crust and escapes as lava and ash.',
  'Sourdough bread rises because wild yeast ferments the flour and releases gas.',
  'The zorblax protocol handshake uses three frames before any payload is sent.',
  'Glaciers carve valleys as they slowly move downhill under their own weight.',
];

describe.each(SETUPS)('fragment scores on one 0..1 similarity scale ($name)', (setup) => {
  const temp = tempDir();
  const ragdesk = setup.open(temp.dir, localEmbeddings());
  let datastore: Datastore;

  beforeAll(async () => {
    datastore = await ragdesk.datastores.create({ name: 'scores' });
    await datastore.upsert(DOCS.map((text, i) => ({ name: `doc-${i}.md`, text })));
  });
  afterAll(async () => {
    await ragdesk.close();
    temp.remove();
  });

  it('the same fragment has the same score in every mode, with each retriever raw value beside it', async () => {
    const query = 'what makes the moon pull the tides';
    const byMode: Record<string, DocumentFragment[]> = {};
    for (const mode of ['hybrid', 'vector', 'lexical'] as const) byMode[mode] = await datastore.query({ query, topK: 5, mode });
    const vectorScore = new Map(byMode.vector!.map((fragment) => [fragment.chunk_id, fragment.score]));
    for (const [mode, fragments] of Object.entries(byMode)) {
      expect(fragments.length, mode).toBeGreaterThan(0);
      for (const fragment of fragments) {
        expect(fragment.score, mode).toBeGreaterThanOrEqual(0);
        expect(fragment.score, mode).toBeLessThanOrEqual(1);
        if (vectorScore.has(fragment.chunk_id)) expect(fragment.score, mode).toBeCloseTo(vectorScore.get(fragment.chunk_id)!, 5);
      }
    }
    const top = byMode.hybrid![0]!;
    expect(top.text).toContain('Tides');
    // Hybrid: the fusion value that ordered the list, and both retrievers' raw values.
    // Fused by min-max scaled scores: at most the sum of the list weights (bm25 1, the offline
    // embedder's fusionWeight 0.3), reached by a fragment both retrievers rank first.
    expect(top.fusion_score).toBeGreaterThan(0);
    expect(top.fusion_score).toBeLessThanOrEqual(1.3 + 1e-9);
    expect(top.vector_score).toBeCloseTo(top.score, 5);
    expect(top.lexical_score).toBeGreaterThan(0);
    expect(byMode.hybrid!.map((fragment) => fragment.fusion_score)).toEqual(
      [...byMode.hybrid!.map((fragment) => fragment.fusion_score)].sort((a, b) => b! - a!),
    );
    expect(byMode.vector![0]).toMatchObject({ lexical_score: null, fusion_score: null });
    expect(byMode.lexical![0]).toMatchObject({ vector_score: null, fusion_score: null });
    // The reported score is no longer the tiny fusion value a similarity threshold would drop.
    expect(top.score).toBeGreaterThan(0.2);
  });

  it('a fragment only the lexical side found still gets its similarity', async () => {
    const [hit] = await datastore.query({ query: 'zorblax', topK: 1, mode: 'lexical' });
    expect(hit!.text).toContain('zorblax');
    expect(hit!.vector_score).toBeNull();
    expect(hit!.score).toBeGreaterThan(0);
    const [viaVector] = (await datastore.query({ query: 'zorblax', topK: 5, mode: 'vector' })).filter(
      (fragment) => fragment.chunk_id === hit!.chunk_id,
    );
    if (viaVector) expect(hit!.score).toBeCloseTo(viaVector.score, 5);
  });
});
