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

  it('returns the same instance every time', () => {
    expect(cl100kTokenizer()).toBe(tokenizer);
  });
});
