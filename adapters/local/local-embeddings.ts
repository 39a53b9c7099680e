import { RagdeskError } from '../../src/errors.js';
import type { EmbedOptions, EmbeddingResult, Embeddings } from '../../src/ports/embeddings.js';
import { DEFAULT_FEATURES, extractFeatures, wordTokens, type FeatureSettings } from './features.js';
import { bucketOf, FeatureTable, hashString, signOf } from './hashing.js';
import { TimeSlices } from '../../src/util/time-slices.js';

export interface LocalEmbeddingsOptions {
  /** Vector length (default 1024; 64 to 8192). Part of the model id: changing it needs re-embedding. */
  dimensions?: number;
}

/** Bumped whenever tokenisation, features, weights or hashing change, since old vectors stop matching. */
const VERSION = 'local-hash-v1';
const DEFAULT_DIMENSIONS = 1024;
const MAX_BATCH_SIZE = 256;
const EMPTY = hashString('\u0000empty', 0);
// Embedding is synchronous, so one scratch table serves every call.
const table = new FeatureTable();

/**
 * Signed feature hashing of one text into a unit vector. A text with no content words (empty, only
 * stopwords or punctuation) gets one fixed unit vector: a zero vector would turn into NaN in indexes
 * that normalise for cosine.
 */
export function embedText(
  text: string,
  dimensions: number,
  settings: FeatureSettings = DEFAULT_FEATURES,
): { vector: Float32Array; tokens: number } {
  const tokens = wordTokens(text);
  // Term frequency is taken per feature, sublinearly (1 + ln tf), times the mean occurrence weight:
  // n-grams shared by many different words ("tion>") then count little more than once.
  extractFeatures(tokens, settings, (hash, weight, occurrences) => table.add(hash, weight, occurrences));
  const sums = new Float64Array(dimensions);
  table.drain((hash, mass, count) => {
    sums[bucketOf(hash, dimensions)]! += signOf(hash) * (mass / count) * (1 + Math.log(count));
  });
  let norm = 0;
  for (let index = 0; index < dimensions; index++) norm += sums[index]! * sums[index]!;
  const vector = new Float32Array(dimensions);
  if (norm === 0) {
    vector[bucketOf(EMPTY, dimensions)] = signOf(EMPTY);
    return { vector, tokens: tokens.length };
  }
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < dimensions; index++) vector[index] = sums[index]! * scale;
  return { vector, tokens: tokens.length };
}

/** Longest stretch of embedding work between two yields to the event loop. */
const YIELD_AFTER_MS = 8;

/** Hybrid-retrieval weight of this embedder's ranking relative to bm25. */
const LOCAL_FUSION_WEIGHT = 0.3;

/**
 * An offline embedder: no network, no downloaded weights, deterministic. It hashes stemmed words, word
 * pairs and character n-grams into a fixed-size vector, so it captures shared vocabulary and morphology
 * (not synonyms or meaning). Queries and documents are embedded alike.
 */
export function localEmbeddings(options: LocalEmbeddingsOptions = {}): Embeddings {
  const dimensions = options.dimensions ?? DEFAULT_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 64 || dimensions > 8192) {
    throw new RagdeskError('invalid_request', 'localEmbeddings: dimensions must be an integer from 64 to 8192', {
      details: { issues: [{ path: 'dimensions', message: 'must be an integer from 64 to 8192' }] },
    });
  }
  return {
    model: `${VERSION}-${dimensions}`,
    specificationVersion: 'v1',
    dimensions,
    maxBatchSize: MAX_BATCH_SIZE,
    // Its features are words and character n-grams: it ranks like bm25, only less well, so an equal
    // vote in hybrid fusion dilutes bm25 (SciFact train nDCG@10: 0.670 at 1, 0.69 at 0.5; see
    // docs/local-embedder.md).
    fusionWeight: LOCAL_FUSION_WEIGHT,
    async embed(texts: readonly string[], embedOptions: EmbedOptions): Promise<EmbeddingResult> {
      embedOptions.signal?.throwIfAborted();
      if (texts.length > MAX_BATCH_SIZE) {
        throw new RagdeskError('invalid_request', `localEmbeddings: at most ${MAX_BATCH_SIZE} texts per call, got ${texts.length}`);
      }
      const vectors: Float32Array[] = [];
      let tokens = 0;
      const slices = new TimeSlices(YIELD_AFTER_MS);
      for (const [index, text] of texts.entries()) {
        // Embedding is pure CPU: hand the event loop back every few milliseconds so queries and
        // HTTP requests stay responsive while a large batch is ingested.
        if (slices.due) {
          await slices.nextSlice();
          embedOptions.signal?.throwIfAborted();
        }
        if (typeof text !== 'string') {
          throw new RagdeskError('invalid_request', `localEmbeddings: texts[${index}] is not a string`);
        }
        const embedded = embedText(text, dimensions);
        vectors.push(embedded.vector);
        tokens += embedded.tokens;
      }
      return { vectors, usage: { tokens } };
    },
  };
}
