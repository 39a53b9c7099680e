/**
 * Smoke test of `bench:peers`: every peer, through the one interface the benchmark drives, on a tiny
 * corpus whose queries each have one obviously right document. Both ingestion paths (text with the
 * offline embedder; shared precomputed vectors) and every mode a peer declares must put that
 * document first, and the persisted size must match what the peer claims about storage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareSharedVectors } from '../../benchmarks/peers/data.js';
import type { Peer, PeerFactory, SourceDocument, TextEmbedder } from '../../benchmarks/peers/peer.js';
import { loadPeer, PEER_IDS } from '../../benchmarks/peers/registry.js';
import { localTextEmbedder, lookupEmbedder } from '../../benchmarks/peers/shared.js';
import { mergeReports } from '../../benchmarks/peers/merge.js';
import type { PeersReport } from '../../benchmarks/peers/render.js';
import { median, ratioRows, type PeerSummary } from '../../benchmarks/peers/summary.js';
import { chartSvg } from '../../benchmarks/peers/svg.js';

const DOCUMENTS: SourceDocument[] = [
  {
    id: 'd1',
    text: 'Photosynthesis in plant leaves: chlorophyll absorbs sunlight and converts carbon dioxide and water into glucose and oxygen.',
  },
  {
    id: 'd2',
    text: 'Volcanic eruptions release magma, ash and sulfur dioxide; lava flows cool into basalt rock on the slopes of the volcano.',
  },
  { id: 'd3', text: 'Mitochondria produce ATP through oxidative phosphorylation, powering the metabolism of the cell.' },
  { id: 'd4', text: 'Medieval castles had moats, drawbridges and stone keeps to defend knights against siege engines.' },
  { id: 'd5', text: 'Neural networks learn their weights by gradient descent and backpropagation on training data.' },
  { id: 'd6', text: 'Coral reefs host clownfish, sea turtles and sponges; ocean warming causes coral bleaching across the reef.' },
  { id: 'd7', text: 'Sourdough bread rises thanks to wild yeast and lactobacillus fermenting the flour and water starter.' },
  { id: 'd8', text: 'Jupiter is a gas giant planet with the great red spot storm and dozens of moons such as Europa.' },
];

const QUERIES: { text: string; expected: string }[] = [
  { text: 'chlorophyll converts sunlight into glucose', expected: 'd1' },
  { text: 'lava and basalt from a volcano', expected: 'd2' },
  { text: 'ATP production in mitochondria', expected: 'd3' },
  { text: 'castle moats and drawbridges', expected: 'd4' },
  { text: 'backpropagation and gradient descent', expected: 'd5' },
  { text: 'coral reef bleaching', expected: 'd6' },
  { text: 'sourdough yeast fermenting flour', expected: 'd7' },
  { text: 'Jupiter gas giant moons', expected: 'd8' },
];

// Every peer's library is loaded here, at collection time, so each available one gets its own tests.
const FACTORIES = await Promise.all(PEER_IDS.map((id) => loadPeer(id)));
const AVAILABLE = FACTORIES.filter((factory): factory is Extract<PeerFactory, { available: true }> => factory.available);

const root = mkdtempSync(join(tmpdir(), 'ragdesk-peers-smoke-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => mkdtempSync(join(root, `p${++dirs}-`));

async function expectRightAnswers(factory: Extract<PeerFactory, { available: true }>, peer: Peer): Promise<void> {
  for (const mode of factory.info.modes) {
    for (const query of QUERIES) {
      const hits = await peer.search(query.text, mode, 3);
      expect(hits.length, `${factory.info.id} ${mode} "${query.text}"`).toBeGreaterThan(0);
      expect(hits[0]?.docId, `${factory.info.id} ${mode} "${query.text}"`).toBe(query.expected);
      for (const hit of hits) expect(Number.isFinite(hit.score)).toBe(true);
    }
  }
}

async function expectStorageAsDeclared(factory: Extract<PeerFactory, { available: true }>, peer: Peer): Promise<void> {
  const closed = await peer.close(true);
  if (factory.info.storage === 'memory') expect(closed.diskBytes).toBeNull();
  else expect(closed.diskBytes).toBeGreaterThan(0);
}

describe('bench:peers smoke (every peer, tiny corpus)', () => {
  const embedder = localTextEmbedder();

  it('lists every peer of the issue, all of them installed', async () => {
    expect(PEER_IDS).toEqual(
      expect.arrayContaining(['ragdesk', 'langchain-memory', 'langchain-hnswlib', 'vectra', 'orama', 'raw-hnswlib', 'raw-fts5']),
    );
    expect(AVAILABLE.map((factory) => factory.info.id)).toEqual([...PEER_IDS]);
  });

  for (const factory of AVAILABLE) {
    const id = factory.info.id;
    it(`${id}: text in with its own chunker and the offline embedder, right document first in every mode`, async () => {
      const peer = await factory.open({ dir: freshDir(), embedder, expectedChunks: DOCUMENTS.length });
      const { chunks } = await peer.ingestDocuments(DOCUMENTS);
      expect(chunks).toBe(DOCUMENTS.length);
      await expectRightAnswers(factory, peer);
      await expectStorageAsDeclared(factory, peer);
    });

    it(`${id}: shared precomputed vectors in, right document first in every mode`, async () => {
      const shared = await prepareSharedVectors(
        DOCUMENTS,
        QUERIES.map((query) => query.text),
        embedder,
      );
      const table = new Map<string, Float32Array>([...shared.chunks, ...shared.queries].map((item) => [item.text, item.vector]));
      const lookup: TextEmbedder = lookupEmbedder(shared.model, shared.dimensions, table, shared.fusionWeight);
      const peer = await factory.open({ dir: freshDir(), embedder: lookup, expectedChunks: shared.chunks.length });
      const { chunks } = await peer.ingestChunks(shared.chunks, new Map(DOCUMENTS.map((document) => [document.id, document])));
      expect(chunks).toBe(shared.chunks.length);
      // The text test above queries as soon as the ingest returns; this one once the peer is idle.
      await peer.settle?.();
      await expectRightAnswers(factory, peer);
      await expectStorageAsDeclared(factory, peer);
    });
  }

  it('the lookup embedder refuses a text it has no vector for (a benchmark bug must not pass silently)', async () => {
    const lookup = lookupEmbedder('m', 2, new Map([['known', Float32Array.of(1, 0)]]));
    await expect(lookup.embed(['unknown'])).rejects.toThrow(/no precomputed vector/);
  });

  it('summaries: medians, ratios as ragdesk ÷ peer per shared mode, merging a re-measured peer', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    const summary = (id: string, ingestSeconds: number, p50: number, ndcg10: number): PeerSummary => ({
      run: 'shared',
      info: { id, label: id, library: id, modes: ['vector'], storage: 'disk', chunker: 'shared', notes: [] },
      unavailable: null,
      repeats: 1,
      documents: 1,
      chunks: 1,
      ingestSeconds,
      chunksPerSecond: 1 / ingestSeconds,
      ingestCpuSeconds: ingestSeconds,
      settledSeconds: ingestSeconds,
      loadRange: [1, 2],
      baselineRssMiB: 50,
      peakRssMiB: 100,
      diskBytes: 1000,
      persistMs: 0,
      modes: [
        {
          mode: 'vector',
          ndcg10,
          recall100: 1,
          mrr10: 1,
          qualityQueries: 1,
          ofQueries: 1,
          p50,
          p99: p50,
          mean: p50,
          cpuMs: p50 / 2,
          latencyQueries: 1,
        },
      ],
    });
    const rows = ratioRows([summary('ragdesk', 2, 1, 0.7), summary('other', 4, 4, 0.6)]);
    // A re-measured peer replaces its row, lands in peer order and clears its failure.
    const report = (summaries: PeerSummary[], failures: PeersReport['failures']): PeersReport => ({
      name: 'peers',
      settings: { split: 'train', repeat: 1, runs: ['shared'], scalingQueries: '1' },
      startedAt: 's',
      date: 'd',
      machine: { node: 'v20', cpus: 2, cpuModel: 'x', memoryGiB: 1 },
      loadAverage: { start: [1], end: [1] },
      summaries,
      vectraUpsert: null,
      scaling: [],
      scalingUnavailable: [],
      failures,
    });
    const merged = mergeReports(
      report([summary('orama', 4, 4, 0.6)], [{ workload: 'scifact-shared', peer: 'ragdesk', error: 'exit 1' }]),
      report([summary('ragdesk', 2, 1, 0.7)], []),
    );
    expect(merged.summaries.map((entry) => entry.info.id)).toEqual(['ragdesk', 'orama']);
    expect(merged.failures).toEqual([]);
    expect(merged.merged?.map((entry) => entry.what)).toEqual(['scifact-shared ragdesk']);
    expect(rows).toEqual([
      expect.objectContaining({
        'vs peer': 'other',
        mode: 'vector',
        'ingest time': '0.50x',
        'ingest CPU': '0.50x',
        p50: '0.25x',
        'CPU/query': '0.25x',
        'nDCG@10 diff': '+0.100',
      }),
    ]);
  });

  it('the chart is one SVG with a line per series and no NaN coordinates', () => {
    const svg = chartSvg('t', [
      {
        title: 'a',
        yLabel: 'y',
        series: [
          {
            group: 'p1',
            points: [
              { x: 10, y: 1 },
              { x: 20, y: 100 },
            ],
          },
          {
            group: 'p2',
            dashed: true,
            points: [
              { x: 10, y: 0.5 },
              { x: 20, y: 0.7 },
            ],
          },
        ],
      },
      {
        title: 'b',
        yLabel: 'y',
        series: [
          {
            group: 'p1',
            points: [
              { x: 10, y: 3 },
              { x: 20, y: Number.NaN },
            ],
          },
        ],
      },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<path /g)?.length).toBe(3);
    expect(svg).not.toMatch(/NaN|Infinity/);
  });
});
