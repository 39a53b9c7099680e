import { describe, expect, it } from 'vitest';
import { localAnswerer, NOTHING_FOUND } from '../../../adapters/local/extractive-answerer.js';
import { splitUnits } from '../../../adapters/local/sentences.js';
import type { GroundingPassage } from '../../../src/ports/chat-model.js';

async function answer(query: string, passages: GroundingPassage[], restrictKnowledge?: boolean): Promise<string> {
  const result = await localAnswerer().generate({
    messages: [{ role: 'user', content: query }],
    model: 'local',
    grounding: { query, passages, ...(restrictKnowledge === undefined ? {} : { restrictKnowledge }) },
  });
  return result.text;
}

describe('splitUnits', () => {
  it('joins lines a PDF wrapped back into whole sentences, parentheses and hyphens included', () => {
    const text = [
      'Over time, advancements such as carbon paper (for',
      'copies) and the electric typewriter (introduced by IBM in 1935) improved the speed and',
      'convenience of document creation. The term "word processor" first emerged in the 1960s.',
    ].join('\n');
    expect(splitUnits(text).map((unit) => unit.text)).toEqual([
      'Over time, advancements such as carbon paper (for copies) and the electric typewriter (introduced by IBM in 1935) improved the speed and convenience of document creation.',
      'The term "word processor" first emerged in the 1960s.',
    ]);
  });

  it('keeps list items, key: value lines and table rows apart, each with what describes it', () => {
    const text = [
      'Booking Agency',
      'Name: Premier Entertainment Group',
      'Commission: 10%',
      '',
      '| | Food | Calories per portion |',
      '| --- | --- | --- |',
      '| Berries | Blueberry, Strawberry | 150 |',
      '',
      '• WordStar (1978): one of the first word processing programs.',
      '• Microsoft Word (1983): a graphical user interface.',
    ].join('\n');
    expect(splitUnits(text)).toEqual([
      { text: 'Booking Agency Name: Premier Entertainment Group Commission: 10%', kind: 'record', context: '' },
      { text: 'Booking Agency', kind: 'heading', context: '' },
      { text: 'Name: Premier Entertainment Group', kind: 'row', context: 'Booking Agency' },
      { text: 'Commission: 10%', kind: 'row', context: 'Booking Agency' },
      { text: '| | Food | Calories per portion |', kind: 'heading', context: 'Booking Agency' },
      { text: '| Berries | Blueberry, Strawberry | 150 |', kind: 'row', context: '| | Food | Calories per portion | Booking Agency' },
      { text: '• WordStar (1978): one of the first word processing programs.', kind: 'sentence', context: 'Booking Agency' },
      { text: '• Microsoft Word (1983): a graphical user interface.', kind: 'sentence', context: 'Booking Agency' },
    ]);
  });

  it('a line introducing a value takes the value line after it', () => {
    const text = 'The intent is to solicit submissions from Construction Managers for the following project:\nKEN SARGENT HOUSE';
    expect(splitUnits(text).map((unit) => unit.text)).toEqual([
      'The intent is to solicit submissions from Construction Managers for the following project: KEN SARGENT HOUSE',
    ]);
  });
});

describe('splitUnits: table rows, records and labels', () => {
  it('each table row is a unit of its own, described by its header row, the header never quoted', () => {
    const units = splitUnits('| Character | Name in German |\n|---|---|\n| Huey | Tick |\n| Dewey | Trick |');
    expect(units.filter((unit) => unit.kind !== 'heading')).toEqual([
      { text: '| Huey | Tick |', kind: 'row', context: '| Character | Name in German |' },
      { text: '| Dewey | Trick |', kind: 'row', context: '| Character | Name in German |' },
    ]);
  });

  it('a block of short lines between blank lines is also one record, before its own lines', () => {
    const text = 'A Case Study for MATH\n\nApril 21, 2023 · 6 min read\nChi Wang\nPrincipal Researcher\n\nLong prose follows here.';
    const units = splitUnits(text);
    expect(units.map((unit) => unit.kind)).toEqual(['heading', 'record', 'row', 'heading', 'heading', 'sentence']);
    expect(units[1]?.text).toBe('April 21, 2023 · 6 min read Chi Wang Principal Researcher');
  });

  it('two headings in a row describe together the lines under them', () => {
    const units = splitUnits('Total Points: 3,247\nREWARDS MEMBER\nSarah Mitchell\nID: TM-447821');
    expect(units.find((unit) => unit.text === 'ID: TM-447821')?.context).toBe('REWARDS MEMBER Sarah Mitchell');
  });
});

describe('choosing by the answer slot', () => {
  it('a "when" question quotes the line holding a date, placed by the title above it, over a sentence without one', async () => {
    const blog: GroundingPassage = {
      number: 1,
      label: '(blog.html)',
      text: [
        'Does Model and Inference Parameter Matter in LLM Applications? - A Case Study for MATH',
        '',
        'April 21, 2023 · 6 min read',
        'Chi Wang',
        '',
        'In this blog post, we will explore how model and inference parameter matter in LLM applications, using a case study for MATH.',
      ].join('\n'),
    };
    const when = await answer('When was the MATH case study blog post published?', [blog]);
    expect(when).toMatch(/^April 21, 2023 · 6 min read Chi Wang \[1\]/);
    expect(when).not.toContain('In this blog post');
    expect(await answer('Who wrote the blog post about model and inference parameters for MATH?', [blog])).toContain('Chi Wang [1]');
  });

  it("a field's abbreviated key stands for the question's word, and a value line under its label is quoted with it", async () => {
    const receipt: GroundingPassage = {
      number: 1,
      label: '(receipt.pdf)',
      text: 'PAYMENT METHOD\nVisa Card ending in 4782\nAuth: 847392\nRef: REF-20241123-98765\n-----\nREWARDS MEMBER\nSarah Mitchell\nID: TM-447821',
    };
    expect(await answer('What is the authorization code for the card payment?', [receipt])).toMatch(/^Auth: 847392 \[1\]/);
    expect(await answer('Who is the rewards member on the receipt?', [receipt])).toContain('REWARDS MEMBER Sarah Mitchell [1]');
  });

  it('a question for a title quotes the opening heading with the line after it', async () => {
    const slides: GroundingPassage = {
      number: 1,
      label: '(survey.pptx, page 1)',
      text: 'Quarterly Duck Survey\nWild Duck Observations by Year\n2019\n2020\n120\n135',
    };
    expect(await answer('What is the title of the duck survey presentation?', [slides])).toMatch(
      /^Quarterly Duck Survey Wild Duck Observations by Year( 2019)? \[1\]/,
    );
  });

  it('the verb of a question for an amount is not a word the documents must hold', async () => {
    const receipt: GroundingPassage = { number: 1, label: '(receipt.pdf)', text: 'TECHMART ELECTRONICS\nSUBTOTAL $863.91\nTOTAL $821.14' };
    const estimate: GroundingPassage = { number: 2, label: '(estimate.pdf)', text: 'Subtotal 2,730\nGRAND TOTAL 5,738' };
    expect(await answer('What was the total paid at TechMart?', [receipt, estimate])).toMatch(/^TOTAL \$821\.14 \[1\]/);
  });

  it("the document's name counts for the question naming it", async () => {
    const json: GroundingPassage = { number: 1, label: '(test.json)', text: 'key1: string_value\nkey2: 1234\nkey3:' };
    expect(await answer('What is the value of key2 in the JSON file?', [json])).toMatch(/^key2: 1234 \[1\]/);
  });
});

describe('the extractive answer', () => {
  const receipt: GroundingPassage = {
    number: 1,
    label: '(receipt.pdf, page 1)',
    text: 'TECHMART ELECTRONICS\n4567 Innovation Blvd\nCashier: Emily Rodriguez\nSUBTOTAL $863.91\nSales Tax (8.5%) $66.23\nTOTAL $821.14\nThank you for shopping!',
  };
  const booking: GroundingPassage = {
    number: 2,
    label: '(booking.pdf, page 1)',
    text: 'STARLIGHT CINEMAS\nBooking Agency\nName: Premier Entertainment Group\nContact: Michael Chen\nCommission: 10%',
  };

  it('quotes the line holding the value asked for, never the heading that only repeats the question', async () => {
    const total = await answer('What is the total at TechMart Electronics?', [receipt, booking]);
    expect(total.startsWith('TOTAL $821.14 [1]')).toBe(true);
    expect(total).not.toContain('TECHMART ELECTRONICS');
    const agency = await answer('Which booking agency handled the Starlight Cinemas order?', [booking, receipt]);
    expect(agency.startsWith('Name: Premier Entertainment Group [2]')).toBe(true);
    expect(agency).not.toMatch(/^Booking Agency/);
  });

  it('cites each quote with its passage number and joins at most three', async () => {
    const text = await answer('Who is the cashier and what is the sales tax?', [receipt, booking]);
    const citations = text.match(/\[\d+\]/g) ?? [];
    expect(citations.length).toBeGreaterThan(0);
    expect(citations.length).toBeLessThanOrEqual(3);
    expect(text).toContain('Cashier: Emily Rodriguez [1]');
  });

  it('says it found nothing, without citations, when the question is not in the passages', async () => {
    expect(await answer('What is the capital of Australia?', [receipt, booking])).toBe(NOTHING_FOUND);
  });

  it('with restrictKnowledge off, words missing from every passage no longer stop it', async () => {
    const query = 'What commission does the Australian Antarctic agency pay?';
    expect(await answer(query, [booking, receipt])).toBe(NOTHING_FOUND);
    expect(await answer(query, [booking, receipt], false)).toContain('Commission: 10% [2]');
  });

  it("drops the document's own footnote marks, so they cannot read as citations", async () => {
    const wiki: GroundingPassage = {
      number: 1,
      label: '(wiki.html)',
      text: 'Microsoft was founded by Bill Gates and Paul Allen on April 4, 1975.[1][5] It is based in Redmond.[7]',
    };
    expect(await answer('Who founded Microsoft?', [wiki])).toBe('Microsoft was founded by Bill Gates and Paul Allen on April 4, 1975. [1]');
  });
});
