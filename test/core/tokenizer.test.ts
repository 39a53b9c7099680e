import * as rawCl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { cl100kTokenizer } from '../../src/ingest/index.js';

describe('cl100kTokenizer', () => {
  const tokenizer = cl100kTokenizer();

  it('names its encoding and encodes known ids', () => {
    expect(tokenizer.name).toBe('cl100k_base');
    expect(tokenizer.encode('hello world')).toEqual([15339, 1917]);
    expect(tokenizer.count('hello world')).toBe(2);
  });

  it('counts what it encodes and decodes what it encodes', () => {
    const samples = [
      'Retrieval-augmented generation cites its sources.',
      '日本語のテキスト、中文文本。한국어 텍스트.',
      'emoji 😀 👍🏽 family 👨‍👩‍👧 flags 🇫🇷 café naïve',
      '  leading and trailing whitespace \n\n\t',
    ];
    for (const text of samples) {
      const tokens = tokenizer.encode(text);
      expect(tokenizer.count(text)).toBe(tokens.length);
      expect(tokenizer.decode(tokens)).toBe(text);
    }
  });

  it('treats special-token markers in user text as plain text', () => {
    const text = 'before <|endoftext|> middle <|im_start|>user<|im_end|> <|fim_prefix|> after';
    expect(() => tokenizer.encode(text)).not.toThrow();
    const tokens = tokenizer.encode(text);
    // 100257 is the id of the real <|endoftext|> special token.
    expect(tokens).not.toContain(100257);
    expect(tokenizer.decode(tokens)).toBe(text);
    expect(tokenizer.count(text)).toBe(tokens.length);
    expect(tokenizer.count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('handles the empty string', () => {
    expect(tokenizer.encode('')).toEqual([]);
    expect(tokenizer.count('')).toBe(0);
    expect(tokenizer.decode([])).toBe('');
  });

  it('encodes long runs without spaces in slices (no quadratic blow-up) and still round-trips', { timeout: 20_000 }, () => {
    // 1 MB of one letter: a whole-run byte-pair merge would take minutes; sliced it takes milliseconds.
    const run = 'a'.repeat(1_000_000);
    const text = `start ${run} middle ${'Zm9vYmFy'.repeat(5_000)} end`;
    const tokens = tokenizer.encode(text);
    expect(tokenizer.decode(tokens)).toBe(text);
    expect(tokenizer.count(text)).toBe(tokens.length);
    // Text without long runs keeps the ids of one whole encoding.
    const plain = 'Ordinary prose keeps its exact token ids. '.repeat(50);
    expect(tokenizer.encode(plain)).toEqual(rawCl100k.encode(plain));
    expect(tokenizer.count(plain)).toBe(tokenizer.encode(plain).length);
  });

  it('returns the same instance every time', () => {
    expect(cl100kTokenizer()).toBe(tokenizer);
  });
});
