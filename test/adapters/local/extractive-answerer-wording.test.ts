import { describe, expect, it } from 'vitest';
import { detectAnswerSlot, keyValue, slotValue } from '../../../adapters/local/answer-slot.js';
import { splitUnits } from '../../../adapters/local/sentences.js';
import { stemOf } from '../../../adapters/local/stems.js';
import type { GroundingPassage } from '../../../src/ports/chat-model.js';
import { answer, stems } from './ask-answerer.js';

describe('the wording of a question', () => {
  it('British and American spellings meet', () => {
    expect(stemOf('colour')).toBe(stemOf('color'));
    expect(stemOf('coloured')).toBe(stemOf('colored'));
    expect(stemOf('organisation')).toBe(stemOf('organization'));
    expect(stemOf('analyse')).toBe(stemOf('analyze'));
    expect(stemOf('four')).not.toBe(stemOf('for'));
  });

  it('a yes/no question asks for what follows its verb of having or showing', () => {
    const slot = detectAnswerSlot('Does the booking order have an estimate number, and which one?');
    expect(slot.kind).toBe('identifier');
    expect(slot.head).toBe(stemOf('estimate'));
  });

  it('a company, unlike a person, may be named by one word', () => {
    const question = 'What company did Gates and Allen found in 1972?';
    const slot = detectAnswerSlot(question);
    expect(slot).toMatchObject({ kind: 'name', single: true });
    expect(slotValue(slot, 'In 1972, they founded Traf-O-Data, which sold a computer.', stems(question))).toBe('Traf-O-Data');
    expect(detectAnswerSlot('Who founded the company?').single).toBeUndefined();
  });

  it("a form's numbered field is a key and its value", () => {
    expect(keyValue('Policy # POL-2022-555 Model Grand Cherokee')).toEqual({ key: 'Policy #', value: 'POL-2022-555 Model Grand Cherokee' });
    expect(keyValue('Store #0342 - Downtown SF')).toEqual({ key: 'Store #', value: '0342 - Downtown SF' });
    expect(keyValue('We ranked #1 in the survey.')).toBeNull();
    const question = 'What policy number does Gabriel Diaz have?';
    expect(slotValue(detectAnswerSlot(question), 'Policy # POL-2022-555 Model Grand Cherokee', stems(question))).toBe('POL-2022-555');
  });

  it('a decade or a century answers "when"', () => {
    const question = 'When was undo introduced?';
    const slot = detectAnswerSlot(question);
    expect(slotValue(slot, 'Undo/Redo: Introduced in the 1980s, the ability to undo mistakes.', stems(question))).toBe('1980s');
    expect(slotValue(slot, 'It dates from the mid-19th century.', stems(question))).toBe('19th century');
  });

  it('an initial or a title before a name ends no sentence', () => {
    const units = splitUnits('On the same day, John W. Thompson took on the role of chairman. Dr. Chen stayed. It rained.');
    expect(units.map((unit) => unit.text)).toEqual([
      'On the same day, John W. Thompson took on the role of chairman.',
      'Dr. Chen stayed.',
      'It rained.',
    ]);
  });

  it('a sentence may open with an acronym, while "e.g." ends none', () => {
    const units = splitUnits('It is a benchmark for problem solving. MATH consists of 12K problems, e.g. AMC problems and others.');
    expect(units.map((unit) => unit.text)).toEqual([
      'It is a benchmark for problem solving.',
      'MATH consists of 12K problems, e.g. AMC problems and others.',
    ]);
  });
});

describe('tables drawn without rules', () => {
  it('each line of values is a row of its own, read with the column names above it and the note under it', () => {
    const units = splitUnits(
      [
        'Show Schedule Details',
        'Ln Screen Start End Movie Title Format Showtime Days Shows Rate Type Total',
        '1 SCR-1 12/20/24 12/25/24 Holiday Spectacular IMAX 3D 7:00 PM Daily 12 $250 PM $3,000',
        '(Runtime: 142 min); Holiday Season Premium',
        '2 SCR-2 12/20/24 12/31/24 Winter Wonderland Standard 4:30 PM Daily 24 $150 MT $3,600',
        '(Runtime: 98 min); Matinee Special',
      ].join('\n'),
    );
    const rows = units.filter((unit) => unit.kind === 'row');
    expect(rows.map((row) => row.text)).toEqual([
      '1 SCR-1 12/20/24 12/25/24 Holiday Spectacular IMAX 3D 7:00 PM Daily 12 $250 PM $3,000 (Runtime: 142 min); Holiday Season Premium',
      '2 SCR-2 12/20/24 12/31/24 Winter Wonderland Standard 4:30 PM Daily 24 $150 MT $3,600 (Runtime: 98 min); Matinee Special',
    ]);
    expect(rows[1]?.context).toContain('Movie Title Format Showtime');
    expect(units.find((unit) => unit.text.startsWith('Ln Screen'))?.kind).toBe('heading');
  });

  it('prose citing a few numbers stays one sentence', () => {
    const units = splitUnits(
      [
        'We picked the model parameter configuration that produced the best prediction',
        'quality (enc=6, dec=6, heads=8) with PubTabNet alone, then independently',
        'trained and evaluated it on three publicly available data sets.',
      ].join('\n'),
    );
    expect(units.map((unit) => [unit.kind, unit.text])).toEqual([
      [
        'sentence',
        'We picked the model parameter configuration that produced the best prediction quality (enc=6, dec=6, heads=8) with PubTabNet alone, then independently trained and evaluated it on three publicly available data sets.',
      ],
    ]);
  });
});

describe('choosing what answers', () => {
  const estimate: GroundingPassage = {
    number: 1,
    label: '(estimate.pdf, page 2)',
    text: 'Insured name Bruce Wayne Year 2025\nPolicy # IM-BATMAN Model Batmobile\nEmail batman@example.com VIN XXX\nColor Black\nOdometer 1',
  };
  const booking: GroundingPassage = {
    number: 2,
    label: '(booking.pdf, page 1)',
    text: 'STARLIGHT CINEMAS\nOrders\nCinema: Downtown Multiplex\nEstimate: EST-456\nRegion: NORTHEAST',
  };
  const notes: GroundingPassage = {
    number: 3,
    label: '(notes.pdf)',
    text: 'Suspension damages may be present, but can not be determined until an alignment on the vehicle has been done on site.',
  };

  it('a British spelling finds the field written the American way', async () => {
    expect(await answer('What colour is the Batmobile?', [estimate, booking])).toContain('Color Black [1]');
  });

  it('"which one" of a yes/no question asks for the value, not for every "on"', async () => {
    // The other fields of the order are not what is asked, however many "on"s their passages hold.
    expect(await answer('Does the Starlight Cinemas booking order have an estimate number, and which one?', [notes, booking])).toBe(
      'Estimate: EST-456 [2]',
    );
  });

  it('words telling the reader what to do or that the document says something are not what is asked', async () => {
    const history: GroundingPassage = {
      number: 1,
      label: '(word-processors.pdf, page 3)',
      text: [
        'Specialized Word Processing Tools',
        '',
        '• Academic and Technical Writing: Tools like LaTeX gained popularity among academics.',
        '• Screenwriting Software: For screenwriters, tools like Final Draft and Celtx are specialized to handle scripts for film and television.',
      ].join('\n'),
    };
    const typing: GroundingPassage = {
      number: 1,
      label: '(word-processors.pdf, page 1)',
      text: 'Word processors are tools for typing. Modern word processors integrate artificial intelligence.',
    };
    const change: GroundingPassage = {
      number: 1,
      label: '(word-processors.pdf, page 2)',
      text: 'Screenwriting and other word processing tools changed how people wrote.',
    };
    // "history" and "mentions" are in no passage: the question is still answered.
    expect(await answer('Name the screenwriting tools the word processor history mentions.', [history, typing, change])).toMatch(
      /^• Screenwriting Software: .*Final Draft and Celtx.* \[1\]/,
    );
  });

  it("the question's words side by side in a sentence count for it", async () => {
    const report: GroundingPassage = {
      number: 1,
      label: '(report.pdf)',
      text: 'The primary variance driver is SKU-4563, which shows a -24 unit discrepancy requiring immediate investigation. Location B-07 handling of SKU-8847 also demonstrates significant variance.',
    };
    expect(await answer('Which SKU is the primary variance driver?', [report])).toMatch(/^The primary variance driver is SKU-4563/);
  });

  it('a field whose key the question names in full answers it', async () => {
    const ducks: GroundingPassage = {
      number: 1,
      label: '(duck.md)',
      text: 'Summer activities\n\n# Swimming in the lake\n\nDuck\n\nFigure 1: This is a cute duckling\n\n## Let’s swim!',
    };
    const slides: GroundingPassage = {
      number: 2,
      label: '(slides.pptx, page 6)',
      text: 'These Test Strings are in the Image! This phrase of the caption is Human-written.',
    };
    expect(await answer('What is the caption of Figure 1 in the summer activities document?', [slides, ducks])).toContain(
      'Figure 1: This is a cute duckling [1]',
    );
  });

  it('a letterhead line holding the name asked for is quoted with the line under it, never alone', async () => {
    const letterhead: GroundingPassage = {
      number: 1,
      label: '(estimate.pdf, page 1)',
      text: 'Zava Auto Repair\nCertified Collision Repair\n123 Main Street, Redmond, WA 98052\nPhone: (425) 000-0000\nPreliminary Estimate (ID: EST-1008)',
    };
    const text = await answer('Which collision repair firm is the preliminary estimate from?', [letterhead]);
    expect(text).toContain('Zava Auto Repair Certified Collision Repair');
    expect(text).not.toMatch(/(^|\] )Zava Auto Repair \[/);
  });
});
