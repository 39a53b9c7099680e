import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { detectAnswerSlot, keyValue, slotValue } from '../../../adapters/local/answer-slot.js';
import { splitWords } from '../../../src/text/query-terms.js';

const stems = (question: string) => new Set(splitWords(question).map((word) => stemmer(word)));
const valueFor = (question: string, text: string) => slotValue(detectAnswerSlot(question), text, stems(question));

describe('detectAnswerSlot', () => {
  it('takes the kind of value from the question word and the words around it', () => {
    expect(detectAnswerSlot('When was the report published?').kind).toBe('date');
    expect(detectAnswerSlot('In what year did the company move?').kind).toBe('date');
    expect(detectAnswerSlot('Who signed the contract?').kind).toBe('name');
    expect(detectAnswerSlot('How many seats does the hall have?').kind).toBe('number');
    expect(detectAnswerSlot('How much did the repair cost?').kind).toBe('money');
    expect(detectAnswerSlot('What is the total on the invoice?').kind).toBe('money');
    expect(detectAnswerSlot('Where is the warehouse located?').kind).toBe('place');
    expect(detectAnswerSlot('What is the title of the slide deck?').kind).toBe('title');
    expect(detectAnswerSlot('Which colour is the car?').kind).toBe('thing');
  });

  it('a "which X" question about a company or person asks for a name', () => {
    expect(detectAnswerSlot('Which booking agency handled the order?')).toEqual({ kind: 'name', head: stemmer('agency'), single: true });
    expect(detectAnswerSlot('Which customer is the order for?').kind).toBe('name');
  });

  it('finds the noun asked about, past possessives, generic nouns and the verb after it', () => {
    expect(detectAnswerSlot("What is the receipt's subtotal before discounts?").head).toBe(stemmer('subtotal'));
    expect(detectAnswerSlot('What is the value of key7 in the file?').head).toBe('key7');
    expect(detectAnswerSlot('Which card paid for the purchase?').head).toBe('card');
    expect(detectAnswerSlot('What is the name of the second sheet?').head).toBe('sheet');
  });

  it('an identifier noun asks for a value of its shape, the noun before it is what to find', () => {
    const policy = detectAnswerSlot('What policy number does the driver have?');
    expect(policy.kind).toBe('identifier');
    expect(policy.head).toBe(stemmer('policy'));
    expect(valueFor('What is the phone number of the store?', 'Call us: (415) 555-0199 today')).toBe('(415) 555-0199');
    expect(valueFor('What is the email address of the contact?', 'Billing Contact: accounts@example.org')).toBe('accounts@example.org');
    expect(valueFor('What is the order number?', 'Order: ORD-2024-77')).toBe('ORD-2024-77');
    expect(valueFor('What is the order number?', 'Thank you for your order')).toBeNull();
  });
});

describe('slotValue', () => {
  it('finds a value of the kind asked for that the question does not already say', () => {
    expect(valueFor('When was the blog post published?', 'April 21, 2023 · 6 min read')).toBe('April 21, 2023');
    expect(valueFor('When did the shop open in 2019?', 'It opened in 2019.')).toBeNull();
    expect(valueFor('How much was the total?', 'TOTAL $821.14')).toBe('$821.14');
    expect(valueFor('How many freshwater ducks were seen in 2022?', '| | 2022 | 170 |')).toBe('170');
    expect(valueFor('Who wrote the post?', 'April 21, 2023 Chi Wang Principal Researcher')).toBe('Chi Wang Principal Researcher');
  });

  it("never takes a field's key, a capitalised sentence start or the question's own name as a name", () => {
    expect(valueFor('Who handled the booking?', 'Booking Dates: 12/20/2024 - 12/31/2024')).toBeNull();
    expect(valueFor('Who wrote about Model Inference?', 'The Model Inference guide is long.')).toBeNull();
    expect(valueFor('Which agency handled it?', 'Name: Premier Entertainment Group')).toBe('Premier Entertainment Group');
  });

  it('a place is an address, a "City, Region" or a line in capitals', () => {
    expect(valueFor('Where is the repair shop?', 'ZAVA AUTO REPAIR 123 Main Street, Redmond, WA 98052')).toBe(
      '123 Main Street, Redmond, WA 98052',
    );
    expect(valueFor('Where is the project located?', 'GRANDE PRAIRIE, ALBERTA')).toBe('GRANDE PRAIRIE, ALBERTA');
  });
});

describe('keyValue', () => {
  it('reads `Key: value`, a two-cell table row and a key in capitals before its amount', () => {
    expect(keyValue('Cashier: Emily Rodriguez')).toEqual({ key: 'Cashier', value: 'Emily Rodriguez' });
    expect(keyValue('| Insured name | Gabriel Diaz |')).toEqual({ key: 'Insured name', value: 'Gabriel Diaz' });
    expect(keyValue('SUBTOTAL $863.91')).toEqual({ key: 'SUBTOTAL', value: '$863.91' });
    expect(keyValue('Sales Tax (8.5%) $66.23')).toBeNull();
  });

  it('prose is no field', () => {
    expect(keyValue('The total was paid in cash: all of it.')).toBeNull();
    expect(keyValue('| just one cell |')).toBeNull();
  });
});
