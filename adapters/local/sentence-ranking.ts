import { stemOf } from './stems.js';
import type { ChatGrounding, GroundingPassage } from '../../src/ports/chat-model.js';
import { extractQueryTerms, splitWords } from '../../src/text/query-terms.js';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';
import { askedObject, detectAnswerSlot, endsPhrase, keyValue, slotValue, type AnswerSlot } from './answer-slot.js';
import { splitUnits, type TextUnit } from './sentences.js';

export interface RankedSentence {
  text: string;
  /** The passage's citation number. */
  passage: number;
  score: number;
  /** The value of the asked-for kind it holds, when it holds one. */
  value: string | null;
}

/**
 * The retrieved units (sentences, table rows, fields) that may answer the grounding's question,
 * best first; empty when none covers enough of it. See {@link scoreUnit} for how they score.
 */
export function rankSentences(grounding: ChatGrounding, minCoverage: number): RankedSentence[] {
  const { passages } = grounding;
  if (passages.length === 0) return [];
  const read = familyReader(new Set(questionTerms(grounding.query).map((term) => stemOf(term))));
  // Each passage's stems with its document's name, read once for the weights, names and missing words.
  const passageStems = passages.map((passage) => new Set([...read(passage.text), ...read(passage.label)]));
  const weights = termWeights(grounding.query, passageStems);
  const total = sum(weights);
  if (total === 0) return [];
  const question: Question = {
    weights,
    total,
    focus: focusWeights(grounding.query, weights),
    pairs: wordPairs(grounding.query, weights),
    slot: detectAnswerSlot(grounding.query),
    stems: new Set(splitWords(grounding.query).map((word) => stemOf(word))),
    words: extractQueryTerms(grounding.query),
    minCoverage,
    read,
    restrict: grounding.restrictKnowledge !== false,
    names: [],
  };
  const present = new Set(passageStems.flatMap((stems) => [...stems]));
  question.names = namesOf(grounding.query, question, present);
  // Answering only from the documents: when words of the question are in no passage at all
  // ("Australia" in "the capital of Australia"), the documents do not hold what it asks.
  const { restrict } = question;
  if (restrict && missingShare(question, present, passages) / total >= MISSING_ENOUGH) return [];
  // Answering only from the documents, a passage not holding the names the question gives is
  // about something else ("how many employees does TechMart have" → a page on Microsoft's staff).
  const names = restrict ? question.names : [];
  const scored: (RankedSentence & { order: number })[] = [];
  passages.forEach((passage, rank) => {
    // Footnote marks of the document ("[12]") would read as citations of the answer.
    const text = passage.text.replace(FOOTNOTE, '');
    const passageStems = new Set([...read(text), ...read(passage.label)]);
    if (!names.every((name) => passageStems.has(name))) return;
    // The document's name says which file the passage is (a question naming "the JSON file").
    const passageCoverage = coverageOf(passageStems, weights) / total;
    const units = withTitle(withTrailingLines(splitUnits(text), text, question), question.slot);
    // Headings are not neighbours: they count already as the context of the units under them.
    const coverages = units.map((unit) => (unit.kind === 'heading' ? 0 : coverageOf(read(unit.text), weights) / total));
    units.forEach((unit, i) => {
      // The units just before it: a title or a field's label placing a value that does not repeat it.
      const neighbour = Math.max(coverages[i - 1] ?? 0, 0.5 * (coverages[i - 2] ?? 0));
      const score = scoreUnit(unit, question, passageCoverage, neighbour);
      if (score === null) return;
      scored.push({
        text: unit.text,
        passage: passage.number,
        score: score.score + 0.01 / (rank + 1),
        value: score.value,
        order: scored.length,
      });
    });
  });
  // A question for a date, an amount, a number or a name is answered by a unit holding one when any does.
  const typed = DEFINITE.has(question.slot.kind) && scored.some((sentence) => sentence.value !== null);
  return scored
    .filter((sentence) => !typed || sentence.value !== null)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .filter(uniqueText())
    .map(({ order: _order, ...sentence }) => sentence);
}

/**
 * A question asking for a title may have the passage's opening heading as its answer: it is quoted
 * with the line after it, never alone.
 */
function withTitle(units: TextUnit[], slot: AnswerSlot): TextUnit[] {
  const [first, second] = units.filter((unit) => unit.kind !== 'record');
  if (slot.kind !== 'title' || first?.kind !== 'heading' || !second) return units;
  return [{ text: `${first.text} ${second.text}`, kind: 'title', context: '' }, ...units];
}

/**
 * A short line the splitter took for a heading may end the unit before it: "…for the following
 * project: KEN SARGENT HOUSE" then "GRANDE PRAIRIE, ALBERTA". When such a line holds the value
 * asked for and the unit before it does not end a sentence, the two are one quotable unit (where the
 * passage has them one after the other).
 */
function withTrailingLines(units: TextUnit[], text: string, question: Question): TextUnit[] {
  if (question.slot.kind === 'title') return units;
  const flat = text.replace(/\s+/g, ' ');
  return units.map((unit, i) => {
    if (unit.kind !== 'heading' || slotValue(question.slot, unit.text, question.stems) === null) return unit;
    const before = units[i - 1];
    // A label line above it ("REWARDS MEMBER" then "Sarah Mitchell") is such a unit too.
    if (before && !/[.!?]$/.test(before.text) && flat.includes(`${before.text} ${unit.text}`)) {
      return { text: `${before.text} ${unit.text}`, kind: 'row', context: before.context };
    }
    // With nothing it ends (the first line of a letterhead: "ZAVA AUTO REPAIR"), it is quoted with
    // the line under it ("Certified Collision Repair"), never alone.
    const after = units[i + 1];
    if (!before && NAMED_KINDS.has(question.slot.kind) && after && after.kind !== 'record' && flat.includes(`${unit.text} ${after.text}`)) {
      return { text: `${unit.text} ${after.text}`, kind: 'row', context: '' };
    }
    return unit;
  });
}

/** Kinds whose value a letterhead or title line may hold: a name, a place. */
const NAMED_KINDS: ReadonlySet<AnswerSlot['kind']> = new Set(['name', 'place']);

interface Question {
  weights: ReadonlyMap<string, number>;
  total: number;
  focus: ReadonlyMap<string, number>;
  slot: AnswerSlot;
  /** Every word of the question, stemmed: a value the question already says is not an answer. */
  stems: ReadonlySet<string>;
  /** Its weighted terms that stand next to each other (stopwords aside), with their joint weight. */
  pairs: ReadonlyMap<string, number>;
  /** The question's words, unstemmed, without stopwords. */
  words: readonly string[];
  minCoverage: number;
  /** A text's stems, with the question's stem beside each word of its family (see {@link familyReader}). */
  read: StemReader;
  /** Answering only from the documents (`restrictKnowledge`): a weak match is no answer. */
  restrict: boolean;
  /** Stems of the names the question gives that some passage holds (see {@link namesOf}). */
  names: string[];
}

/**
 * A unit scores by the share of the question's weight it covers (its heading or header counting
 * for part), the share of the question's focus it and its heading cover, the share its passage
 * covers (which page or file the question is about), the units just before it (a title above a
 * byline), and by holding a value of the kind asked for that the question does not already say.
 * Null when it cannot answer: a heading, a line that only repeats the question, or too little
 * coverage.
 */
function scoreUnit(
  unit: TextUnit,
  question: Question,
  passageCoverage: number,
  neighbour: number,
): { score: number; value: string | null } | null {
  // "[50, 1000]" reads as citations: the agent would strip it and the quote would no longer be the passage's.
  if (unit.kind === 'heading' || CITATION_LIKE.test(unit.text)) return null;
  const { weights, total, focus, slot } = question;
  const field = keyValue(unit.text);
  const stems = field ? new Set([...question.read(unit.text), ...keyStemsOf(field.key, question.words)]) : question.read(unit.text);
  // A line that only repeats the question's words ("Booking Agency", a title) answers nothing.
  if (![...stems].some((stem) => !weights.has(stem) && !ENGLISH_STOPWORDS.has(stem) && (stem.length > 1 || /\d/.test(stem)))) return null;
  const contextStems = minus(question.read(unit.context), stems);
  const own = coverageOf(stems, weights) / total;
  const coverage = own + CONTEXT_SHARE * (coverageOf(contextStems, weights) / total);
  const focusTotal = sum(focus) || 1;
  // The heading or header naming a field counts in full for the focus: it is what the row is.
  const focused = coverageOf(new Set([...stems, ...contextStems]), focus) / focusTotal;
  const value = slotValue(slot, unit.text, question.stems);
  const enough =
    coverage >= question.minCoverage ||
    // Much of the focus in a passage that covers the rest ("GRAND TOTAL 5,738" on the page naming
    // the estimate's customer).
    (focused >= FOCUS_ENOUGH && passageCoverage >= PASSAGE_ENOUGH) ||
    // The value asked for right after a unit covering the question (a byline under its title).
    (value !== null && neighbour >= question.minCoverage && passageCoverage >= PASSAGE_ENOUGH) ||
    // A short field naming part of the focus, with a value, in a passage covering the question
    // ("Store #0342 - Downtown SF" on the receipt a question about a store points at).
    (unit.kind === 'row' && value !== null && focused > 0 && passageCoverage >= PASSAGE_ENOUGH);
  if (!enough) return null;
  // A value of the asked-for kind is placed by the words around it: a date under the title it dates.
  const near = value !== null && DEFINITE.has(question.slot.kind) ? NEAR_VALUE_SHARE * neighbour : NEIGHBOUR_SHARE * neighbour;
  const score =
    coverage +
    PHRASE_SHARE * (coverageOf(pairsOf(unit.text), question.pairs) / question.total) +
    FOCUS_SHARE * focused +
    PASSAGE_SHARE * passageCoverage +
    near +
    slotScore(question, slot, unit, stems, contextStems, focus, value) -
    (LENGTH_COST * Math.max(0, unit.text.length - 120)) / 100 -
    // A block quoted whole says more than was asked: its own lines win a tie.
    (unit.kind === 'record' ? RECORD_COST : 0);
  return { score, value };
}

/**
 * What holding the asked-for value is worth: a value of the slot's kind the question does not say,
 * the question's head noun, and a field whose key is what the question asks about (its value is
 * the answer). A unit without any value of a definite kind (a date for "when") loses a little.
 */
function slotScore(
  question: Question,
  slot: AnswerSlot,
  unit: TextUnit,
  stems: ReadonlySet<string>,
  contextStems: ReadonlySet<string>,
  focus: ReadonlyMap<string, number>,
  value: string | null,
): number {
  let score = 0;
  if (slot.kind === 'title') score += unit.kind === 'title' ? DEFINITE_VALUE_BONUS : 0;
  else if (!DEFINITE.has(slot.kind)) score += value !== null ? VALUE_BONUS : 0;
  // A question for a date, an amount or a name is not answered by a sentence holding none.
  else score += value !== null ? DEFINITE_VALUE_BONUS : -NO_VALUE_COST;
  if (slot.head && (stems.has(slot.head) || contextStems.has(slot.head))) score += HEAD_BONUS;
  const field = keyValue(unit.text);
  if (field) {
    const keyStems = keyStemsOf(field.key, question.words);
    // "Name: Premier Entertainment Group" under "Booking Agency": the heading is the key's owner.
    const described = /^(name|value|title)$/i.test(field.key) ? new Set([...keyStems, ...contextStems]) : keyStems;
    // Or a key the question names in full ("the caption of Figure 1" → `Figure 1: …`).
    const named =
      keyStems.size > 0 &&
      [...keyStems].every((stem) => question.stems.has(stem)) &&
      [...keyStems].some((stem) => question.weights.has(stem));
    if ([...focus.keys()].some((stem) => described.has(stem)) || (slot.head !== null && described.has(slot.head)) || named)
      score += KEY_BONUS;
  }
  return score;
}

/**
 * A field key's stems, an abbreviation standing for the question's word it begins ("Auth" for
 * "authorization", "Qty" does not shorten that way and stays itself).
 */
function keyStemsOf(key: string, questionWords: readonly string[]): Set<string> {
  const stems = new Set<string>();
  for (const word of splitWords(key)) {
    const full =
      word.length >= 3 ? questionWords.find((candidate) => candidate.length > word.length && candidate.startsWith(word)) : undefined;
    stems.add(stemOf(full ?? word));
  }
  return stems;
}

/**
 * Kinds whose values are recognised reliably by their form: a unit without one cannot answer. A
 * place ("ponds, lakes, rivers") or a thing has no such form.
 */
const DEFINITE: ReadonlySet<AnswerSlot['kind']> = new Set(['money', 'number', 'date', 'name', 'identifier']);

/** Brackets holding only numbers, which an answer's reader (and the agent) take for citations. */
const CITATION_LIKE = /\[\d[\d\s,–-]*\]/;

/** `[12]`: a document's own footnote mark. */
const FOOTNOTE = /\[\d{1,4}\]/g;
/** Share of the focus a unit needs when the question is mostly covered by its passage. */
const FOCUS_ENOUGH = 0.5;
/** Share of the question a passage must cover for a unit holding enough of the focus to answer. */
const PASSAGE_ENOUGH = 0.5;
/** How much covering what the question asks about (its focus) counts beside covering all of it. */
const FOCUS_SHARE = 0.5;
/** How much of the question a unit's heading or table header may cover for it. */
const CONTEXT_SHARE = 0.6;
/** How much the question's adjacent term pairs found side by side in a unit count ("Windows 95"). */
const PHRASE_SHARE = 0.25;
/** How much the whole passage's coverage counts: it tells which page or file the question is about. */
const PASSAGE_SHARE = 0.35;
/** How much the coverage of the unit just before counts (a title above its byline). */
const NEIGHBOUR_SHARE = 0.15;
/** How much the unit just before counts for a unit holding a value of the definite kind asked for. */
const NEAR_VALUE_SHARE = 0.6;
/** Holding a value of the asked-for kind the question does not say. */
const VALUE_BONUS = 0.12;
/** Holding a value of a definite asked-for kind (a date for "when", a name for "who"). */
const DEFINITE_VALUE_BONUS = 0.25;
/** Holding no value of the definite kind asked for. */
const NO_VALUE_COST = 0.3;
/** Naming the noun the question asks about ("which card" → a line with "card"). */
const HEAD_BONUS = 0.12;
/** A field whose key is what the question asks about. */
const KEY_BONUS = 0.12;
/** What quoting a block of lines whole costs beside quoting one of its lines. */
const RECORD_COST = 0.1;
/** Per 100 characters beyond 120: with equal coverage, the shorter quote answers more directly. */
const LENGTH_COST = 0.02;
/** How much a missing verb in -ed or -ing counts towards {@link MISSING_ENOUGH}. */
const MISSING_VERB_SHARE = 0.5;
/** Share of the question's weight in no passage at which the documents are taken not to answer it. */
const MISSING_ENOUGH = 0.35;

/**
 * The question's focus: the words right after its question word, up to the first preposition or
 * verb ("what is the grand total on the estimate for X" → grand, total). The rest of the question
 * says where to look (the passage's coverage); the focus says which sentence there answers.
 */
function focusWeights(query: string, weights: ReadonlyMap<string, number>): Map<string, number> {
  // "the receipt's subtotal": the owner places it, the subtotal is asked for. "the value of key2":
  // a generic noun asks for what follows it.
  // A yes/no question asks to be shown what follows its verb ("does the order have an estimate number").
  const object = askedObject(query);
  const words = splitWords(
    (object ?? query).replace(/\b[\p{L}\p{N}-]+['’]s\s+/gu, ' ').replace(/\b(value|name|title|number|amount|kind|type)\s+of\b/gi, ' '),
  );
  let start = object ? 0 : words.findIndex((word) => /^(what|which|who|whom|whose|when|where|how|name|list)$/.test(word));
  start = start === -1 ? 0 : start + 1;
  while (
    start < words.length &&
    (ENGLISH_STOPWORDS.has(words[start] as string) || /^(many|much|old|long|far)$/.test(words[start] as string))
  ) {
    start++;
  }
  const focus = new Map<string, number>();
  for (const word of words.slice(start)) {
    // "the screenwriting tools the history mentions": an article starts another phrase.
    if (focus.size > 0 && (endsPhrase(word, true) || /^(the|a|an)$/.test(word))) break;
    const weight = weights.get(stemOf(word));
    if (weight !== undefined) focus.set(stemOf(word), weight);
  }
  return focus;
}

/**
 * The names the question gives ("TechMart", "Canada": a capitalised word past its first) that some
 * passage holds: a passage not holding them all is about something else. Names no passage holds
 * are left to {@link missingShare}.
 */
function namesOf(query: string, question: Question, present: ReadonlySet<string>): string[] {
  const names = (query.match(/(?<=\S\s+)\p{Lu}[\p{L}\d-]*/gu) ?? []).map((word) => stemOf(word.toLowerCase()));
  return [...new Set(names)].filter((name) => question.weights.has(name) && present.has(name));
}

/**
 * Weight of the question's terms that no passage (nor its document's name: `present`, their stems)
 * contains, a field key abbreviating one counting as containing it.
 */
function missingShare(question: Question, present: ReadonlySet<string>, passages: readonly GroundingPassage[]): number {
  const all = new Set([...present, ...passages.flatMap((passage) => fieldKeyStems(passage.text, question.words))]);
  let missing = 0;
  const slotWords = question.slot.kind === 'money' ? MONEY_VERBS : SLOT_NOUNS;
  // A verb in -ed or -ing ("cited", "proved", "encouraging") is often said by the documents in
  // other words; the nouns say what the question is about.
  const verbs = new Set(question.words.filter((word) => /(ed|ing)$/.test(word)).map((word) => stemOf(word)));
  for (const [stem, weight] of question.weights)
    if (!all.has(stem) && !SLOT_NOUNS.has(stem) && !slotWords.has(stem)) missing += weight * (verbs.has(stem) ? MISSING_VERB_SHARE : 1);
  return missing;
}

/** Words naming the kind of answer, not what it is about: "the title of…", "the value of…". */
const SLOT_NOUNS = new Set(['title', 'name', 'value', 'number', 'amount', 'kind', 'type'].map((word) => stemOf(word)));

/** Verbs of a question for an amount that a receipt or invoice does not write ("the total paid"). */
const MONEY_VERBS = new Set(['paid', 'pay', 'charged', 'cost', 'spent', 'spend'].map((word) => stemOf(word)));

/** The stems of a passage's field keys ("Auth:" standing for the question's "authorization"). */
function fieldKeyStems(text: string, questionWords: readonly string[]): string[] {
  const stems: string[] = [];
  for (const match of text.matchAll(/^([^:\n]{1,40}):/gm)) stems.push(...keyStemsOf(match[1] as string, questionWords));
  return stems;
}

function stemsOf(text: string): Set<string> {
  return new Set(splitWords(text).map((word) => stemOf(word)));
}

type StemReader = (text: string) => Set<string>;

/**
 * Reads a text's stems, adding the question's stem beside a word of the same family that stemming
 * leaves apart: "subscription" for "subscribe", "production" for "produce" (a verb and its noun in
 * -tion, six letters shared at least), "employee" for "employ", and a word negating it
 * ("unopened" for "opened": the answer to "can opened … be returned").
 */
function familyReader(questionStems: ReadonlySet<string>): StemReader {
  const content = [...questionStems].filter((stem) => stem.length >= 3 && !ENGLISH_STOPWORDS.has(stem));
  const cache = new Map<string, string | null>();
  const relative = (stem: string): string | null => {
    let found = cache.get(stem);
    if (found === undefined) {
      found = questionStems.has(stem) ? null : (content.find((question) => sameFamily(question, stem)) ?? null);
      cache.set(stem, found);
    }
    return found;
  };
  return (text) => {
    const stems = stemsOf(text);
    for (const stem of [...stems]) {
      const question = relative(stem);
      if (question !== null) stems.add(question);
    }
    return stems;
  };
}

function sameFamily(question: string, stem: string): boolean {
  if (stem === `un${question}`) return true;
  // "employ" (stemmed "emploi") and "employe": a verb in -y and its noun of person.
  const verb = [question, stem].find((word) => word.endsWith('i'))?.replace(/i$/, 'y');
  const other = verb === undefined ? undefined : [question, stem].find((word) => !word.endsWith('i'));
  if (verb && other && verb.length >= FAMILY_MIN && other.startsWith(verb) && other.length - verb.length <= FAMILY_SLACK) return true;
  if (question.length < FAMILY_MIN || stem.length < FAMILY_MIN) return false;
  let shared = 0;
  while (shared < question.length && question[shared] === stem[shared]) shared++;
  if (shared < FAMILY_MIN) return false;
  // Only the endings a verb and its noun take ("subscrib"/"subscript", "produc"/"product"): any
  // other difference is another word ("complet"/"complex", "concern"/"concert").
  const [short, long] = [question.slice(shared), stem.slice(shared)].sort((x, y) => x.length - y.length) as [string, string];
  return FAMILY_ENDINGS.some(([a, b]) => short === a && long === b);
}

/** Endings of a verb's stem and of its noun's stem past what they share. */
const FAMILY_ENDINGS: readonly (readonly [string, string])[] = [
  ['', 't'],
  // "reconcil"/"reconcili", "histor"/"histori": a stem and the one Porter gives its noun or adjective.
  ['', 'i'],
  ['b', 'pt'],
  ['v', 'pt'],
  ['c', 'ct'],
];

/** Shortest stem matched by its family: shorter ones share prefixes by chance ("state", "statu"). */
const FAMILY_MIN = 6;
/** Letters a noun of person may add to its verb ("employ" / "employe"). */
const FAMILY_SLACK = 2;

function minus(set: ReadonlySet<string>, remove: ReadonlySet<string>): Set<string> {
  return new Set([...set].filter((value) => !remove.has(value)));
}

function sum(weights: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  return total;
}

/**
 * Query stems weighted by rarity across the passages: a term in every passage ("the product")
 * says little about which sentence answers; a term in one passage says a lot.
 */
function termWeights(query: string, passageStems: readonly ReadonlySet<string>[]): Map<string, number> {
  const stems = [...new Set(questionTerms(query).map((term) => stemOf(term)))].filter((stem) => !ENGLISH_STOPWORDS.has(stem));
  const weights = new Map<string, number>();
  for (const stem of stems) {
    // A term no passage contains still counts against coverage (the passages may not answer the
    // question at all), but only as much as a term of one passage: otherwise filler words of the
    // question ("how long does it take") would outweigh the words the passages do share.
    const df = Math.max(1, passageStems.filter((set) => set.has(stem)).length);
    weights.set(stem, Math.log(1 + (passageStems.length + 1) / (df + 0.5)));
  }
  return weights;
}

/**
 * The question's terms without the words that address the reader rather than name what is asked:
 * a leading imperative ("Name the…", "List…") and verbs of a document saying something ("…the
 * history mentions"), which no sentence holding the answer needs to repeat.
 */
function questionTerms(query: string): string[] {
  const terms = extractQueryTerms(query);
  const first = splitWords(query)[0];
  return terms.filter((term, i) => !(i === 0 && term === first && IMPERATIVES.has(term)) && !SAYING.has(term));
}

const IMPERATIVES = new Set(['name', 'list', 'give', 'tell', 'show', 'describe', 'identify', 'find', 'state']);
const SAYING = new Set(['mention', 'mentions', 'mentioned', 'say', 'says', 'said']);

/**
 * Pairs of the question's terms that stand next to each other once stopwords are left out
 * ("windows 95", "primary variance", "variance driver"), each weighing its two terms' mean.
 */
function wordPairs(query: string, weights: ReadonlyMap<string, number>): Map<string, number> {
  const pairs = new Map<string, number>();
  // Words naming the kind of answer ("the value of key2") pair with nothing.
  const stems = contentStems(query).filter((stem) => !SLOT_NOUNS.has(stem));
  for (let i = 1; i < stems.length; i++) {
    const a = weights.get(stems[i - 1] as string);
    const b = weights.get(stems[i] as string);
    if (a !== undefined && b !== undefined) pairs.set(`${stems[i - 1]} ${stems[i]}`, (a + b) / 2);
  }
  return pairs;
}

/** The adjacent stem pairs of a text, stopwords left out. */
function pairsOf(text: string): Set<string> {
  const stems = contentStems(text);
  const pairs = new Set<string>();
  for (let i = 1; i < stems.length; i++) pairs.add(`${stems[i - 1]} ${stems[i]}`);
  return pairs;
}

function contentStems(text: string): string[] {
  return splitWords(text)
    .filter((word) => !ENGLISH_STOPWORDS.has(word))
    .map((word) => stemOf(word));
}

function coverageOf(present: ReadonlySet<string>, weights: ReadonlyMap<string, number>): number {
  let covered = 0;
  for (const [stem, weight] of weights) if (present.has(stem)) covered += weight;
  return covered;
}

function uniqueText(): (sentence: RankedSentence) => boolean {
  const seen = new Set<string>();
  return (sentence) => {
    const key = sentence.text.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}
