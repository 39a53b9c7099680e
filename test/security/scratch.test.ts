import { it } from 'vitest';
import { chunkSections } from '../../src/ingest/index.js';
import { cl100kTokenizer } from '../../src/ingest/tokenizer.js';

function timed(name: string, fn: () => unknown) {
  const t = performance.now();
  try { const r = fn() as any; console.log(name, 'ok', Math.round(performance.now() - t), 'ms', Array.isArray(r) ? r.length : r); }
  catch (e) { console.log(name, 'ERR', Math.round(performance.now() - t), 'ms', String(e).slice(0, 200)); }
}
it('scratch', () => {
  const tok = cl100kTokenizer();
  for (const n of [1e4, 1e5, 1e6]) {
    timed(`count a*${n}`, () => tok.count('a'.repeat(n)));
    let x = ''; for (let i = 0; x.length < n; i++) x += Math.imul(i, 2654435761).toString(36);
    timed(`count rnd ${n}`, () => tok.count(x));
    timed(`chunk a*${n}`, () => chunkSections([{ text: 'a'.repeat(n) }], { chunkSize: 512, overlap: 64 } as never));
    timed(`chunk rnd ${n}`, () => chunkSections([{ text: x }], { chunkSize: 512, overlap: 64 } as never));
    timed(`chunk special ${n}`, () => chunkSections([{ text: '<|endoftext|>'.repeat(n / 13) }], { chunkSize: 512, overlap: 64 } as never));
  }
}, 600_000);
