import { describe, expect, it } from 'vitest';
import { detectAnswerSlot, slotValue } from '../../../adapters/local/answer-slot.js';
import { localAnswerer, NOTHING_FOUND } from '../../../adapters/local/extractive-answerer.js';
import { splitUnits } from '../../../adapters/local/sentences.js';
import type { GroundingPassage } from '../../../src/ports/chat-model.js';
import { answer, stems } from './ask-answerer.js';

const RECEIPT = [
  'TECHMART ELECTRONICS',
  '4567 Innovation Blvd',
  '(415) 555-0199',
  '===================================',
  'Cashier: Emily Rodriguez',
  '-----------------------------------',
  'REWARDS MEMBER',
  'Sarah Mitchell',
  'Total Points: 3,247',
  'Next Reward: $50 gift card',
  'at 5,000 pts (1,753 to go)',
  '-----------------------------------',
  'RETURN POLICY',
  'Returns within 30 days',
  'Receipt required',
  'Electronics must be unopened',
].join('\n');

describe('lines of a document', () => {
  it('a Markdown heading is a heading, though it holds digits, and is never the answer', async () => {
    const units = splitUnits('## 1910s–1950s\n\nIBM employees and alumni have won six Nobel Prizes and six Turing Awards.');
    expect(units[0]).toMatchObject({ text: '## 1910s–1950s', kind: 'heading' });
    const text = await answer('How many Nobel Prizes have IBM employees and alumni won?', [
      {
        number: 1,
        label: 'wiki.md',
        text: '# IBM\n\nIBM is a company.\n\n## 1910s–1950s\n\nIBM employees and alumni have won six Nobel Prizes.',
      },
    ]);
    expect(text).toBe('IBM employees and alumni have won six Nobel Prizes. [1]');
  });

  it('a number may be written as a word', () => {
    const question = 'How many Nobel Prizes have they won?';
    expect(slotValue(detectAnswerSlot(question), 'They have won six Nobel Prizes.', stems(question))).toBe('six');
  });

  it('a rule drawn with characters separates lines and titles nothing', () => {
    const units = splitUnits(RECEIPT);
    expect(units.some((unit) => unit.text.startsWith('==='))).toBe(false);
    expect(units.find((unit) => unit.text === 'Cashier: Emily Rodriguez')?.context).not.toContain('===');
  });

  it('a short line stating a rule is a sentence that can answer, not a heading', async () => {
    const units = splitUnits(RECEIPT);
    expect(units.find((unit) => unit.text === 'Electronics must be unopened')?.kind).toBe('sentence');
    expect(units.find((unit) => unit.text === 'Receipt required')?.kind).toBe('heading');
    // The best quote holds the rule: the block of the return policy, or the line alone.
    const text = await answer('Can opened electronics be returned to TechMart?', [{ number: 1, label: 'receipt.pdf', text: RECEIPT }]);
    expect(text.split(' [1]')[0]).toContain('Electronics must be unopened');
  });

  it('a line opening with a preposition goes on under the short line above it', async () => {
    const units = splitUnits(RECEIPT);
    expect(units.map((unit) => unit.text)).toContain('Next Reward: $50 gift card at 5,000 pts (1,753 to go)');
    const text = await answer('How many points to go until the next reward?', [{ number: 1, label: 'receipt.pdf', text: RECEIPT }]);
    expect(text).toContain('Next Reward: $50 gift card at 5,000 pts (1,753 to go) [1]');
  });
});

describe('words of one family', () => {
  it('"subscribe" finds the column "Subscription Date"', async () => {
    const table = [
      '| First Name | Last Name | Company | Subscription Date |',
      '| --- | --- | --- | --- |',
      '| Sheryl | Baxter | Rasmussen Group | 2020-08-24 |',
      '| Roy | Berry | Murillo-Perry | 2020-03-25 |',
    ].join('\n');
    const passages: GroundingPassage[] = [
      { number: 1, label: 'customers.csv', text: table },
      { number: 2, label: 'food.docx', text: 'Berries have 150 calories per portion. Roy Rogers liked berries.' },
      { number: 3, label: 'duck.md', text: 'Berries are a treat for ducks.' },
    ];
    expect(await answer('When did Roy Berry subscribe?', passages)).toBe('| Roy | Berry | Murillo-Perry | 2020-03-25 | [1]');
  });

  it('"employ" finds "employees"', async () => {
    const text = await answer('How many people did Contoso employ in 2023?', [
      { number: 1, label: 'a.html', text: 'In 2023, Contoso had 221,000 employees.' },
      { number: 2, label: 'b.html', text: 'Contoso sells software to people.' },
      { number: 3, label: 'c.html', text: 'People like ducks.' },
    ]);
    expect(text).toBe('In 2023, Contoso had 221,000 employees. [1]');
  });
});

describe('words the documents do not hold', () => {
  it('a verb in -ed or -ing the documents say in other words counts half against answering', async () => {
    const passages: GroundingPassage[] = [
      {
        number: 1,
        label: 'autogen.docx',
        text: 'Prior work suggests that multiple agents can help encourage divergent thinking (Liang et al., 2023).',
      },
      { number: 2, label: 'goals.md', text: 'Agents are thinking about divergent goals.' },
      { number: 3, label: 'notes.md', text: 'Divergent thinking helps agents.' },
      { number: 4, label: 'ducks.md', text: 'Ducks eat grass and small fish.' },
    ];
    expect(await answer('Which study is cited for agents encouraging divergent thinking?', passages)).toContain(
      '(Liang et al., 2023). [1]',
    );
    // Nouns the documents do not hold still count in full.
    expect(await answer('Which study of the journal is cited for agents encouraging divergent thinking?', passages)).toBe(NOTHING_FOUND);
  });
});

describe('what the question names', () => {
  it('a UUID is asked for by its shape wherever the word stands in the question', () => {
    expect(detectAnswerSlot('Which UUID sits in the random table?').kind).toBe('identifier');
    const question = 'Which UUID sits in the random table?';
    expect(slotValue(detectAnswerSlot(question), '| 13 | 14 | 49e168b7-d2ae-407f-a055-2167576f39a1 | 15 |', stems(question))).toBe(
      '49e168b7-d2ae-407f-a055-2167576f39a1',
    );
  });

  it('a passage not naming what the question names is not quoted', async () => {
    const passages: GroundingPassage[] = [
      { number: 1, label: 'microsoft.html', text: 'In 2023, Microsoft had 221,000 employees worldwide.' },
      { number: 2, label: 'receipt.pdf', text: 'TECHMART ELECTRONICS\nCashier: Emily Rodriguez' },
    ];
    const text = await answer('How many employees does TechMart have?', passages);
    expect(text).not.toContain('221,000');
    // Without restricting the answer to the documents, the weaker match is still offered.
    const loose = await localAnswerer().generate({
      messages: [],
      model: 'local',
      grounding: { query: 'How many employees does TechMart have?', passages, restrictKnowledge: false },
    });
    expect(loose.text).toContain('221,000');
  });

  it('a date under a title answers "when" when its passage covers the question', async () => {
    const text = await answer('When was the blog post about MATH published?', [
      {
        number: 1,
        label: 'blog.html',
        text: [
          'Does Model and Inference Parameter Matter in LLM Applications? - A Case Study for MATH',
          '',
          'April 21, 2023 · 6 min read',
          '',
          'In this blog post, we will explore how model and inference parameters matter.',
        ].join('\n'),
      },
    ]);
    expect(text).toContain('April 21, 2023');
  });
});
