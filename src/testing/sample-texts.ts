/**
 * Plausible English passages for store and retrieval suites, generated from a seed: topical
 * vocabularies in sentence templates. Real enough for bm25 (stopwords, repeated topic words,
 * varied lengths) without shipping a corpus, and with no expected scores baked in.
 */
import { seededRandom } from './random.js';

export type SampleTopic = 'astronomy' | 'cooking' | 'gardening' | 'sailing';

const VOCABULARY: Record<SampleTopic, { nouns: string[]; verbs: string[]; adjectives: string[] }> = {
  astronomy: {
    nouns: ['telescope', 'galaxy', 'nebula', 'orbit', 'planet', 'observatory', 'satellite', 'eclipse', 'spectrum', 'asteroid'],
    verbs: ['observes', 'tracks', 'measures', 'reveals', 'maps', 'photographs'],
    adjectives: ['distant', 'faint', 'bright', 'elliptical', 'massive', 'infrared'],
  },
  cooking: {
    nouns: ['recipe', 'oven', 'dough', 'sauce', 'skillet', 'saffron', 'broth', 'pastry', 'marinade', 'kitchen'],
    verbs: ['simmers', 'bakes', 'seasons', 'whisks', 'roasts', 'kneads'],
    adjectives: ['crispy', 'savory', 'tender', 'spicy', 'golden', 'fragrant'],
  },
  gardening: {
    nouns: ['compost', 'seedling', 'greenhouse', 'trellis', 'mulch', 'orchard', 'pruning', 'soil', 'tomato', 'irrigation'],
    verbs: ['waters', 'prunes', 'plants', 'harvests', 'fertilizes', 'shades'],
    adjectives: ['sunny', 'fertile', 'organic', 'shaded', 'seasonal', 'hardy'],
  },
  sailing: {
    nouns: ['harbor', 'mainsail', 'rudder', 'anchor', 'regatta', 'keel', 'tide', 'compass', 'mooring', 'sailor'],
    verbs: ['steers', 'anchors', 'navigates', 'trims', 'charts', 'moors'],
    adjectives: ['windy', 'calm', 'coastal', 'northern', 'rough', 'sheltered'],
  },
};

const TEMPLATES = [
  'The {adjective} {noun} {verb} the {noun} before the {noun} is ready.',
  'Every {noun} in the guide {verb} a {adjective} {noun}.',
  'When the {noun} is {adjective}, the team {verb} the {noun} with care.',
  'Our {noun} notes explain how a {adjective} {noun} {verb} each {noun}.',
  'A {adjective} {noun} rarely {verb} the {noun} on its own.',
];

const SAMPLE_TOPICS: readonly SampleTopic[] = ['astronomy', 'cooking', 'gardening', 'sailing'];

/** A passage of `sentences` sentences (default 3 to 6) on one topic. */
export function samplePassage(topic: SampleTopic, seed: number, sentences?: number): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words = VOCABULARY[topic];
  const count = sentences ?? 3 + Math.floor(random() * 4);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    parts.push(
      pick(TEMPLATES).replace(/\{(noun|verb|adjective)\}/g, (_, kind: string) =>
        kind === 'noun' ? pick(words.nouns) : kind === 'verb' ? pick(words.verbs) : pick(words.adjectives),
      ),
    );
  }
  return parts.join(' ');
}

/** `count` passages cycling through the topics, each with its own seed. */
export function samplePassages(count: number, seed = 1): string[] {
  return Array.from({ length: count }, (_, i) => samplePassage(SAMPLE_TOPICS[i % SAMPLE_TOPICS.length] as SampleTopic, seed * 10_007 + i));
}
