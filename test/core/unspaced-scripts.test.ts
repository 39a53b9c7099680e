import { describe, expect, it } from 'vitest';
import { segmentTerms, splitTerms } from '../../src/text/query-terms.js';
import { hasUnspacedScript, segmentWord } from '../../src/text/unspaced-scripts.js';

const segments = (word: string) => {
  const terms: string[] = [];
  segmentWord(word, (term) => terms.push(term));
  return terms;
};

describe('segmentWord', () => {
  it('splits Han, kana and Hangul runs into characters and overlapping pairs', () => {
    expect(segments('东京大学')).toEqual(['东', '东京', '京', '京大', '大', '大学', '学']);
    expect(segments('タワー')).toEqual(['タ', 'タワ', 'ワ', 'ワー', 'ー']);
    expect(segments('서울은')).toEqual(['서', '서울', '울', '울은', '은']);
    expect(segments('桜')).toEqual(['桜']);
  });

  it('splits Thai runs into pairs only, keeps other letters whole, leaves spaced words alone', () => {
    expect(segments('ไทย')).toEqual(['ไท', 'ทย']);
    expect(segments('ก')).toEqual(['ก']);
    expect(segments('2024年度')).toEqual(['2024', '年', '年度', '度']);
    expect(segments('tシャツ')).toEqual(['t', 'シ', 'シャ', 'ャ', 'ャツ', 'ツ']);
    expect(segments('telescope')).toEqual(['telescope']);
    expect(hasUnspacedScript('télescope')).toBe(false);
  });

  it('gives documents and queries the same terms', () => {
    expect(splitTerms('我们学习中文。Green tea')).toEqual([
      '我',
      '我们',
      '们',
      '们学',
      '学',
      '学习',
      '习',
      '习中',
      '中',
      '中文',
      '文',
      'green',
      'tea',
    ]);
    expect(segmentTerms(['中文', '文'])).toEqual(['中', '中文', '文']);
  });
});
