import { afterEach, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { RagdeskError } from '../../../src/errors.js';
import type { Embeddings } from '../../../src/ports/embeddings.js';
import { setSliceClock, steppingClock } from '../../../src/util/slice-clock.js';

const DOCUMENT = { purpose: 'document' } as const;
const QUERY = { purpose: 'query' } as const;

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += a[index]! * b[index]!;
  return dot;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(cosine(vector, vector));
}

async function embedOne(embeddings: Embeddings, text: string): Promise<Float32Array> {
  const { vectors } = await embeddings.embed([text], DOCUMENT);
  return vectors[0]!;
}

describe('localEmbeddings', () => {
  afterEach(() => setSliceClock(undefined));

  const embeddings = localEmbeddings();

  it('describes itself', () => {
    expect(embeddings.dimensions).toBe(1024);
    expect(embeddings.model).toBe('local-hash-v1-1024');
    expect(embeddings.maxBatchSize).toBe(256);
    const small = localEmbeddings({ dimensions: 384 });
    expect(small.dimensions).toBe(384);
    expect(small.model).toBe('local-hash-v1-384');
  });

  it('rejects impossible dimensions', () => {
    for (const dimensions of [0, 63, 100.5, 8193, Number.NaN]) {
      expect(() => localEmbeddings({ dimensions })).toThrow(RagdeskError);
    }
  });

  it('returns one unit vector of the right length per text, in order', async () => {
    const texts = ['Insulin resistance in type 2 diabetes.', 'A recipe for sourdough bread.', 'Ünïcödé façade — ﬁne'];
    const { vectors, usage } = await embeddings.embed(texts, DOCUMENT);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(1024);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
    expect(cosine(vectors[0]!, await embedOne(embeddings, texts[0]!))).toBeCloseTo(1, 6);
    // Usage counts word tokens, stopwords included.
    expect(usage.tokens).toBe(6 + 5 + 3);
  });

  it('is deterministic across calls and instances', async () => {
    const text = 'Deterministic vectors keep stored embeddings valid forever.';
    const first = await embedOne(embeddings, text);
    const again = await embedOne(localEmbeddings(), text);
    expect(Array.from(again)).toEqual(Array.from(first));
    const asQuery = (await embeddings.embed([text], QUERY)).vectors[0]!;
    expect(Array.from(asQuery)).toEqual(Array.from(first));
  });

  it('puts related texts closer than unrelated ones', async () => {
    const [query, related, unrelated] = (
      await embeddings.embed(
        [
          'Does aspirin reduce the risk of heart attacks?',
          'Daily low-dose aspirin lowered the risk of myocardial infarction and heart attack in adults.',
          'The football club signed a new striker before the transfer window closed.',
        ],
        DOCUMENT,
      )
    ).vectors;
    expect(cosine(query!, related!)).toBeGreaterThan(0.3);
    expect(cosine(query!, related!)).toBeGreaterThan(cosine(query!, unrelated!) + 0.2);
  });

  it('maps inflected forms close together', async () => {
    const running = await embedOne(embeddings, 'running');
    const runs = await embedOne(embeddings, 'runs');
    const banana = await embedOne(embeddings, 'banana');
    // One shared stem and the "<run" n-gram; a single unrelated word shares nothing.
    expect(cosine(running, runs)).toBeGreaterThan(0.25);
    expect(cosine(running, runs)).toBeGreaterThan(Math.abs(cosine(running, banana)) + 0.2);
    const plural = await embedOne(embeddings, 'mitochondrial proteins');
    const singular = await embedOne(embeddings, 'mitochondrion protein');
    expect(cosine(plural, singular)).toBeGreaterThan(0.6);
  });

  it('handles Chinese and Japanese text', async () => {
    const a = await embedOne(embeddings, '检索增强生成的测试');
    const b = await embedOne(embeddings, '检索增强生成');
    const c = await embedOne(embeddings, '今日は良い天気です');
    expect(cosine(a, b)).toBeGreaterThan(0.5);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.3);
  });

  it('gives texts without content words a finite unit vector', async () => {
    const { vectors, usage } = await embeddings.embed(['', '   ', '!!! ...', 'the of and'], DOCUMENT);
    for (const vector of vectors) {
      expect(vector.every(Number.isFinite)).toBe(true);
      expect(norm(vector)).toBeCloseTo(1, 6);
    }
    expect(usage.tokens).toBe(3);
    const text = await embedOne(embeddings, 'aspirin');
    expect(Number.isFinite(cosine(vectors[0]!, text))).toBe(true);
  });

  it('embeds special-token markers and control characters as text', async () => {
    const vector = await embedOne(embeddings, 'before <|endoftext|> after <|im_start|> \u0000\u0007 end');
    expect(vector.every(Number.isFinite)).toBe(true);
    expect(norm(vector)).toBeCloseTo(1, 5);
  });

  it('accepts maxBatchSize texts and rejects more', async () => {
    const texts = Array.from({ length: 256 }, (_, index) => `text number ${index} about topic ${index % 7}`);
    const { vectors } = await embeddings.embed(texts, DOCUMENT);
    expect(vectors).toHaveLength(256);
    await expect(embeddings.embed([...texts, 'one more'], DOCUMENT)).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await embeddings.embed([], DOCUMENT)).vectors).toEqual([]);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embeddings.embed(['text'], { purpose: 'query', signal: controller.signal })).rejects.toThrow();
  });

  it('hands the event loop back during a large batch', async () => {
    // Each check of the slice counts as 1 ms of work, so the 8 ms slice is used up after a few texts
    // on any machine: the test fails only if the embedder never yields.
    setSliceClock(steppingClock(1));
    const embeddings = localEmbeddings();
    const text = 'Mitochondrial proteins fold inside the matrix while chaperones assist import. '.repeat(40);
    const order: string[] = [];
    const work = embeddings
      .embed(
        Array.from({ length: 256 }, (_, i) => `${i} ${text}`),
        DOCUMENT,
      )
      .then(() => order.push('embedded'));
    setImmediate(() => order.push('other work'));
    await work;
    expect(order).toEqual(['other work', 'embedded']);
  });
});
