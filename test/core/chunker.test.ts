import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RagdeskError } from '../../src/errors.js';
import {
  chunkSections,
  chunkSectionsYielding,
  cl100kTokenizer,
  cleanText,
  type TextChunk,
  type Tokenizer,
} from '../../src/ingest/index.js';
import type { LoadedSection } from '../../src/ports/loader.js';
import { setSliceClock, steppingClock } from '../../src/util/slice-clock.js';

const tokenizer = cl100kTokenizer();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A deterministic pseudo-English text: sentences of 6–20 words, paragraphs of 2–6 sentences. */
function prose(paragraphs: number, seed = 7): string {
  const words = [
    'the',
    'index',
    'stores',
    'vectors',
    'for',
    'every',
    'chunk',
    'and',
    'retrieval',
    'ranks',
    'them',
    'by',
    'similarity',
    'while',
    'lexical',
    'search',
    'finds',
    'exact',
    'terms',
    'in',
    'documents',
    'agents',
    'answer',
    'questions',
    'with',
    'sources',
    'quoted',
    'from',
    'pages',
    'of',
    'reports',
  ];
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const out: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    const sentences: string[] = [];
    const count = 2 + next(5);
    for (let s = 0; s < count; s++) {
      const length = 6 + next(15);
      const sentence = Array.from({ length }, () => words[next(words.length)]!).join(' ');
      sentences.push(sentence[0]!.toUpperCase() + sentence.slice(1) + '.');
    }
    out.push(sentences.join(' '));
  }
  return out.join('\n\n');
}

function joinedOf(sections: readonly LoadedSection[]): string {
  return sections.map((section) => section.text).join('\n\n');
}

function expectValidChunks(joined: string, chunks: readonly TextChunk[], chunkSize: number): void {
  for (const chunk of chunks) {
    expect(chunk.tokenCount).toBeLessThanOrEqual(chunkSize);
    expect(chunk.tokenCount).toBe(tokenizer.count(chunk.text));
    expect(joined.startsWith(chunk.text, chunk.charOffset)).toBe(true);
    expect(chunk.text).toBe(chunk.text.trim());
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(LONE_SURROGATE.test(chunk.text)).toBe(false);
  }
}

/** Every non-whitespace character of the source is in some chunk. */
function expectCoverage(joined: string, chunks: readonly TextChunk[]): void {
  const covered = new Uint8Array(joined.length);
  for (const chunk of chunks) covered.fill(1, chunk.charOffset, chunk.charOffset + chunk.text.length);
  for (let index = 0; index < joined.length; index++) {
    if (!/\s/.test(joined[index]!)) expect(covered[index], `offset ${index}`).toBe(1);
  }
}

describe('chunkSections', () => {
  it('returns no chunks for empty or whitespace-only input', () => {
    expect(chunkSections('')).toEqual([]);
    expect(chunkSections(' \n\n\t  ')).toEqual([]);
    expect(chunkSections([])).toEqual([]);
    expect(
      chunkSections([
        { text: '  ', pageNumber: 1 },
        { text: '\n', pageNumber: 2 },
      ]),
    ).toEqual([]);
  });

  it('keeps a short text whole, trimmed, with its offset and hash', () => {
    const [chunk, ...rest] = chunkSections('  Hello world.  ');
    expect(rest).toEqual([]);
    expect(chunk).toEqual({
      text: 'Hello world.',
      tokenCount: 3,
      charOffset: 2,
      pageNumber: null,
      hash: createHash('sha256').update('Hello world.').digest('hex'),
    });
  });

  it('validates its options with invalid_request', () => {
    const bad = [{ chunkSize: 15 }, { chunkSize: 100.5 }, { chunkSize: 64, overlap: 32 }, { overlap: -1 }, { overlap: 1.5 }];
    for (const options of bad) {
      try {
        chunkSections('text', options);
        expect.unreachable(JSON.stringify(options));
      } catch (error) {
        expect(error).toBeInstanceOf(RagdeskError);
        expect((error as RagdeskError).code).toBe('invalid_request');
      }
    }
    expect(() => chunkSections('text', { chunkSize: 16, overlap: 7 })).not.toThrow();
  });

  it('never exceeds chunkSize and covers the whole text', () => {
    const text = prose(40);
    for (const [chunkSize, overlap] of [
      [16, 0],
      [64, 16],
      [200, 40],
      [512, 64],
    ] as const) {
      const chunks = chunkSections(text, { chunkSize, overlap });
      expect(chunks.length).toBeGreaterThan(1);
      expectValidChunks(text, chunks, chunkSize);
      expectCoverage(text, chunks);
    }
  });

  it('fills chunks reasonably and prefers paragraph ends', () => {
    const text = prose(60);
    const chunks = chunkSections(text, { chunkSize: 128, overlap: 0 });
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.tokenCount).toBeGreaterThanOrEqual(64);
      const after = text.slice(chunk.charOffset + chunk.text.length, chunk.charOffset + chunk.text.length + 2);
      // Ends at a sentence end; a paragraph end when one lies in the second half of the chunk.
      expect(chunk.text.endsWith('.')).toBe(true);
      const lastBreak = chunk.text.lastIndexOf('\n\n');
      if (lastBreak >= 0 && tokenizer.count(chunk.text.slice(0, lastBreak)) >= 64) expect(after).toBe('\n\n');
    }
  });

  it('carries whole sentences from the end of the previous chunk as overlap', () => {
    const text = prose(40);
    const chunks = chunkSections(text, { chunkSize: 100, overlap: 30 });
    for (let index = 1; index < chunks.length; index++) {
      const previous = chunks[index - 1]!;
      const chunk = chunks[index]!;
      const previousEnd = previous.charOffset + previous.text.length;
      expect(chunk.charOffset).toBeGreaterThan(previous.charOffset);
      expect(chunk.charOffset).toBeLessThan(previousEnd);
      const overlapText = text.slice(chunk.charOffset, previousEnd);
      expect(previous.text.endsWith(overlapText)).toBe(true);
      expect(tokenizer.count(overlapText)).toBeLessThanOrEqual(30 + 2);
      // Whole sentences: the overlap starts right after a sentence end.
      expect(text.slice(0, chunk.charOffset).trimEnd().endsWith('.')).toBe(true);
    }
  });

  it('falls back to trailing words when the last sentence is longer than the overlap', () => {
    const sentence = `${'word '.repeat(200).trim()}.`;
    const chunks = chunkSections(sentence, { chunkSize: 64, overlap: 10 });
    expectValidChunks(sentence, chunks, 64);
    for (let index = 1; index < chunks.length; index++) {
      const previousEnd = chunks[index - 1]!.charOffset + chunks[index - 1]!.text.length;
      expect(chunks[index]!.charOffset).toBeLessThan(previousEnd);
      expect(tokenizer.count(sentence.slice(chunks[index]!.charOffset, previousEnd))).toBeLessThanOrEqual(10);
    }
  });

  it('never spans two pages and labels chunks with their page', () => {
    const sections: LoadedSection[] = [
      { text: prose(6, 1), pageNumber: 1 },
      { text: prose(6, 2), pageNumber: 1 },
      { text: prose(3, 3), pageNumber: 2 },
      { text: 'Short third page.', pageNumber: 3 },
      { text: prose(4, 4) },
    ];
    const joined = joinedOf(sections);
    const chunks = chunkSections(sections, { chunkSize: 80, overlap: 20 });
    expectValidChunks(joined, chunks, 80);
    expectCoverage(joined, chunks);
    let start = 0;
    const ranges = sections.map((section) => {
      const range = { start, end: start + section.text.length, page: section.pageNumber ?? null };
      start = range.end + 2;
      return range;
    });
    const pageStart = (page: number | null) => ranges.find((range) => range.page === page)!.start;
    const pageEnd = (page: number | null) => ranges.filter((range) => range.page === page).at(-1)!.end;
    for (const chunk of chunks) {
      expect(chunk.charOffset).toBeGreaterThanOrEqual(pageStart(chunk.pageNumber));
      expect(chunk.charOffset + chunk.text.length).toBeLessThanOrEqual(pageEnd(chunk.pageNumber));
    }
    expect(new Set(chunks.map((chunk) => chunk.pageNumber))).toEqual(new Set([1, 2, 3, null]));
    expect(chunks.find((chunk) => chunk.pageNumber === 3)!.text).toBe('Short third page.');
  });

  it('cuts a run without spaces inside tokens, without overlap', () => {
    const blob = 'QmFzZTY0IGJsb2I'.repeat(400);
    const chunks = chunkSections(blob, { chunkSize: 50, overlap: 10 });
    expectValidChunks(blob, chunks, 50);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(blob);
  });

  it('keeps CJK text and emoji sequences intact', () => {
    const cjk = '这是一个关于检索增强生成的测试句子。'.repeat(120) + '日本語の文章もあります！'.repeat(60);
    const cjkChunks = chunkSections(cjk, { chunkSize: 64, overlap: 8 });
    expectValidChunks(cjk, cjkChunks, 64);
    expectCoverage(cjk, cjkChunks);
    for (const chunk of cjkChunks.slice(0, -1)) expect(chunk.text).toMatch(/[。！]$/);

    const family = '👨‍👩‍👧'.repeat(300);
    const emojiChunks = chunkSections(family, { chunkSize: 32, overlap: 0 });
    expectValidChunks(family, emojiChunks, 32);
    expect(emojiChunks.map((chunk) => chunk.text).join('')).toBe(family);
    for (const chunk of emojiChunks) {
      expect(chunk.text.startsWith('👨')).toBe(true);
      expect(chunk.text.endsWith('👧')).toBe(true);
    }

    const mixed = `${'Café naïve résumé 😀👍🏽 한국어 텍스트. '.repeat(100)}`;
    expectValidChunks(mixed, chunkSections(mixed, { chunkSize: 40, overlap: 8 }), 40);
  });

  it('does not throw on special-token markers', () => {
    const text = `${'Tokens like <|endoftext|> and <|im_start|> appear in user files. '.repeat(50)}`;
    const chunks = chunkSections(text, { chunkSize: 64, overlap: 8 });
    expectValidChunks(text, chunks, 64);
  });

  it('is deterministic, and hashes depend only on the text', () => {
    const sections: LoadedSection[] = [
      { text: prose(20, 9), pageNumber: 1 },
      { text: prose(20, 10), pageNumber: 2 },
    ];
    const first = chunkSections(sections, { chunkSize: 100, overlap: 20 });
    expect(chunkSections(sections, { chunkSize: 100, overlap: 20 })).toEqual(first);
    for (const chunk of first) expect(chunk.hash).toBe(createHash('sha256').update(chunk.text).digest('hex'));
    expect(chunkSections('Same text.')[0]!.hash).toBe(chunkSections([{ text: 'Same text.', pageNumber: 4 }])[0]!.hash);
  });

  it('treats a string like one section without a page', () => {
    const text = prose(10);
    expect(chunkSections(text, { chunkSize: 64 })).toEqual(chunkSections([{ text }], { chunkSize: 64 }));
  });

  it('uses the tokenizer it is given', () => {
    // One token per character makes sizes exact and easy to check.
    const perChar: Tokenizer = {
      name: 'chars',
      encode: (text) => Array.from(text, (char) => char.codePointAt(0)!),
      decode: (tokens) => String.fromCodePoint(...tokens),
      count: (text) => Array.from(text).length,
    };
    const text = prose(10);
    const chunks = chunkSections(text, { chunkSize: 100, overlap: 0, tokenizer: perChar });
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBe(Array.from(chunk.text).length);
      expect(chunk.tokenCount).toBeLessThanOrEqual(100);
    }
  });

  it('rejects sections without text', () => {
    expect(() => chunkSections([{ text: 3 } as unknown as LoadedSection])).toThrow(RagdeskError);
  });
});

describe('cleanText', () => {
  it('normalises newlines, strips controls, collapses spaces and blank lines, trims', () => {
    expect(cleanText('\u0000 a\r\nb\rc \u0007 d\u00a0\u00a0 e\t\tf  \n\n\n\n\ng \u000c h\u0085i \ufeff')).toBe(
      'a\nb\nc d e\t\tf\n\ng\n\nh\ni',
    );
  });

  it('keeps emoji sequences and tabs', () => {
    expect(cleanText('👨‍👩‍👧\tcell')).toBe('👨‍👩‍👧\tcell');
  });

  it('turns lines of spaces into blank lines', () => {
    expect(cleanText('a\n   \n   \n  b')).toBe('a\n\nb');
  });
});

describe('chunkSections with a tokenizer that packs many characters per token', () => {
  it('never cuts a surrogate pair at the edge of its search window', () => {
    // 64 characters per token: the 8-characters-per-token window ends inside the text, between halves.
    const wide: Tokenizer = {
      name: 'wide',
      encode: (text) => Array.from({ length: Math.ceil(text.length / 64) }, (_, index) => index),
      decode: () => '',
      count: (text) => Math.ceil(text.length / 64),
    };
    const text = `a${'😀'.repeat(2000)}`;
    const chunks = chunkSections(text, { chunkSize: 16, overlap: 0, tokenizer: wide });
    for (const chunk of chunks) expect(LONE_SURROGATE.test(chunk.text)).toBe(false);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(text);
  });
});

describe('chunkSections costs linear tokenizer work for every script', () => {
  /** cl100k with its work counted: characters handed to it and calls, per input character. */
  function countingTokenizer(): { tokenizer: Tokenizer; work: { calls: number; chars: number } } {
    const work = { calls: 0, chars: 0 };
    const counted = <T>(text: string, run: () => T): T => {
      work.calls++;
      work.chars += text.length;
      return run();
    };
    return {
      work,
      tokenizer: {
        name: 'counted',
        encode: (text) => counted(text, () => tokenizer.encode(text)),
        count: (text) => counted(text, () => tokenizer.count(text)),
        // Decoding token prefixes in a loop was the quadratic path: the chunker needs no decode.
        decode: () => {
          throw new Error('the chunker decoded tokens');
        },
      },
    };
  }

  const scripts: Record<string, (chars: number) => string> = {
    'ZWJ family emoji': (chars) => '👩‍👩‍👧‍👦'.repeat(Math.ceil(chars / 11)),
    'ZWJ emoji with skin tones and spaces': (chars) => '👩🏽‍💻👨🏿‍🚀 '.repeat(Math.ceil(chars / 15)),
    'combining marks': (chars) => 'a\u0301\u0302\u0303\u0304\u0305\u0306\u0307'.repeat(Math.ceil(chars / 8)),
    'CJK without punctuation': (chars) => '检索增强生成测试句子日本語の文章'.repeat(Math.ceil(chars / 16)),
    'RTL without spaces': (chars) => 'مرحبابالعالםשלוםעולם'.repeat(Math.ceil(chars / 20)),
    'RTL words': (chars) => 'مرحبا بالعالم שלום עולם '.repeat(Math.ceil(chars / 24)),
    'mixed scripts': (chars) => 'Café😀한국어ναί\u202eтекст👍🏽'.repeat(Math.ceil(chars / 20)),
  };

  for (const [name, make] of Object.entries(scripts)) {
    it(`${name}: work per character stays flat as the input grows`, () => {
      const perChar = (chars: number) => {
        const text = make(chars);
        const { tokenizer: counting, work } = countingTokenizer();
        const chunks = chunkSections(text, { chunkSize: 128, overlap: 16, tokenizer: counting });
        expectValidChunks(text, chunks, 128);
        expectCoverage(text, chunks);
        return { chars: work.chars / text.length, calls: work.calls / text.length };
      };
      const small = perChar(4_000);
      const large = perChar(64_000);
      // Each character is tokenized a bounded number of times (window, bisection, chunk check),
      // and that number does not grow with the input: a prefix-decoding loop grew it with every
      // chunk's token count.
      expect(large.chars).toBeLessThan(40);
      expect(large.chars).toBeLessThan(small.chars * 1.5 + 1);
      expect(large.calls).toBeLessThan(small.calls * 1.5 + 0.01);
    });
  }
});

describe('chunkSectionsYielding', () => {
  it('cuts exactly the chunks of the synchronous chunker', async () => {
    const pages: LoadedSection[] = [
      { text: prose(3, 1), pageNumber: 1 },
      { text: prose(40, 2), pageNumber: 2 },
      { text: prose(1, 3), pageNumber: 2, standalone: true },
      { text: 'x'.repeat(9000), pageNumber: 3 },
    ];
    for (const [input, options] of [
      [prose(200, 5), {}],
      [prose(60, 6), { chunkSize: 64, overlap: 8 }],
      [pages, { chunkSize: 128 }],
    ] as const) {
      const expected = chunkSections(input, options);
      expect(expected.length).toBeGreaterThan(1);
      expect(await chunkSectionsYielding(input, options, 0)).toEqual(expected);
    }
  });

  it('hands the event loop back while it works on a long document', async () => {
    const text = prose(400, 9);
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    // Each check of the slice counts as 1 ms of work, whatever the machine's speed.
    setSliceClock(steppingClock(1));
    const chunks = await chunkSectionsYielding(text, {}, 8).finally(() => setSliceClock(undefined));
    counting = false;
    expect(chunks).toEqual(chunkSections(text));
    // Several slices: a single synchronous call would have let the ticker run once, after it had
    // finished.
    expect(turns).toBeGreaterThan(3);
  });
});
