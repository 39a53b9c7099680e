import { seededRandom } from '../../src/testing/random.js';
import { gaussian, normalise } from './synthetic.js';

/**
 * The corpus of bench:scale (and of bench:ef-construction, which chose the default build beam on
 * it): chunk i's text and vector are computed from i alone, so a run of a million chunks holds no
 * corpus in memory. One cluster per 500 chunks (at least 20), each with a 60-word topic; a chunk is
 * ~40 words, 70% from its topic, and a unit vector at its cluster's centre plus Gaussian noise
 * (sigma 0.08 a dimension, so a cluster is wide: neighbours within it are close to equidistant,
 * a hard case for a graph index).
 */
export interface ScaleCorpus {
  dimensions: number;
  clusters: number;
  chunk(i: number): { text: string; vector: Float32Array };
  query(q: number): { text: string; vector: Float32Array };
}

export function scaleCorpus(count: number, dimensions = 384): ScaleCorpus {
  const clusters = Math.max(20, Math.round(count / 500));
  const setup = seededRandom(7);
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x${Math.floor(setup() * 1e6).toString(36)}`);
  const centers = Array.from({ length: clusters }, () => normalise(Float32Array.from({ length: dimensions }, () => gaussian(setup))));
  const topics = centers.map(() => Array.from({ length: 60 }, () => vocabulary[Math.floor(setup() * vocabulary.length)] as string));

  function words(random: () => number, cluster: number, length: number): string {
    const topic = topics[cluster] as string[];
    let text = '';
    for (let w = 0; w < length; w++) {
      text += `${w ? ' ' : ''}${random() < 0.7 ? topic[Math.floor(random() * 60)] : vocabulary[Math.floor(random() * vocabulary.length)]}`;
    }
    return text;
  }

  return {
    dimensions,
    clusters,
    chunk(i) {
      const random = seededRandom(0x9e3779b1 ^ i);
      const cluster = Math.floor(random() * clusters);
      const text = `doc ${i} ${words(random, cluster, 40)}`;
      const center = centers[cluster] as Float32Array;
      const vector = new Float32Array(dimensions);
      for (let d = 0; d < dimensions; d++) vector[d] = (center[d] as number) + gaussian(random) * 0.08;
      return { text, vector: normalise(vector) };
    },
    query(q) {
      const random = seededRandom(0x51ed270b ^ q);
      const cluster = Math.floor(random() * clusters);
      const center = centers[cluster] as Float32Array;
      const vector = normalise(Float32Array.from(center, (value) => value + gaussian(random) * 0.08));
      return { text: words(random, cluster, 6), vector };
    },
  };
}
