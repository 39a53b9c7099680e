import { stemOf } from './stems.js';
import { splitWords } from '../../src/text/query-terms.js';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';

/**
 * What kind of value a question asks for: `money` (how much, total, price), `number` (how many,
 * a rate, a percentage), `date` (when, what year), `name` (who, which person or organisation) or
 * `title` (the title of a document, presentation or page) or `thing` (what / which X: whatever
 * stands beside X).
 */
type SlotKind = 'money' | 'number' | 'date' | 'name' | 'place' | 'title' | 'identifier' | 'thing';

export interface AnswerSlot {
  kind: SlotKind;
  /** For an identifier, the shape its value has (a phone number, an e-mail address, a code). */
  shape?: RegExp;
  /** Stem of the noun the question asks about ("which card paid" → card), when it names one. */
  head: string | null;
  /**
   * For a name: whether one capitalised word may be it ("which company…" → "Lenovo"), not only two
   * or more in a row (a person's full name).
   */
  single?: boolean;
}

const MONEY_WORDS = /\b(how much|total|subtotal|cost|costs|price|prices|paid|pay|charged|fee|fees|amount|balance|tax|revenue|due)\b/;
const NUMBER_WORDS = /\b(how (many|old|long|far|big|large|tall|often)|number of|percentage|percent|rate|count|size|quantity)\b/;
const DATE_WORDS = /^\s*(when\b|(what|which) (year|date|day|month|time)\b)|\b(what|which) (year|date)\b|\bon what date\b/;
/** Nouns whose "which X" asks for a named person, company or place. */
const NAMED =
  /^(agency|company|firm|person|customer|client|vendor|supplier|author|writer|cashier|member|contact|manager|owner|organi[sz]ation|city|country|state|team|bank|brand|store|shop|cinema|theater|theatre|school|university|insurer|insured|driver|artist|director|studio|distributor)$/;
/** Nouns whose names are often one word: a company, a brand, a place. */
const ONE_WORD_NAMES =
  /^(agency|company|firm|vendor|supplier|organi[sz]ation|city|country|state|team|bank|brand|store|shop|insurer|studio|distributor|school|university)$/;
/** Identifier nouns and the shape of their values. */
const IDENTIFIER_SHAPES: [RegExp, RegExp][] = [
  [/^(phone|telephone|fax|mobile|cell)$/, /\+?\(?\d{2,4}\)?[\s.-]?\d{3}[\s.-]?\d{3,4}\b/],
  [/^(email|e-mail|mail)$/, /[\w.+-]+@[\w-]+\.[\w.-]+/],
  [/^(website|url|site|homepage)$/, /\bhttps?:\/\/\S+|\bwww\.\S+/],
  [/^(uuid|guid)$/, /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i],
  [/^(id|code|number|no|reference|ref|vin|sku|isbn|serial|account)$/, /(?<![\p{L}\d-])(?=[\p{L}\d/#-]*\d)[\p{L}\d][\p{L}\d/#-]*/u],
];
/** Identifier nouns that name nothing else, so they set the shape wherever they stand in the phrase. */
const UNAMBIGUOUS_IDENTIFIERS = /^(uuid|guid|email|e-mail|url|vin|isbn|sku)$/;
/** Nouns naming an identifier of the noun before them ("policy number", "order id"). */
const IDENTIFIER = /^(number|no|id|code|name|reference|ref)$/;
/** Generic nouns that ask for the value of what follows them ("the name of the customer"). */
const GENERIC = new Set(['value', 'name', 'title', 'number', 'amount', 'kind', 'type']);

/**
 * The answer slot of a question, from its wording: the question word sets the kind (who → name,
 * when → date, how many → number, how much / total / price → money), and the noun after
 * what / which is the head ("which booking agency" → agency, a named thing).
 */
export function detectAnswerSlot(query: string): AnswerSlot {
  const q = query.toLowerCase().replace(/[’]/g, "'");
  const { head, last, phrase } = headNoun(q);
  // "phone number" is shaped like a phone number, "order number" like a code; failing those, any
  // word of the phrase may name the identifier ("which UUID sits in…", where "sits" ends it).
  const nouns = last?.split(' ') ?? [];
  const shapeOf = (words: readonly string[]) => IDENTIFIER_SHAPES.find(([noun]) => words.some((word) => noun.test(word)))?.[1];
  const shape = shapeOf(nouns) ?? shapeOf(phrase.filter((word) => UNAMBIGUOUS_IDENTIFIERS.test(word)));
  const stemmed = head && !ENGLISH_STOPWORDS.has(head) ? stemOf(head) : null;
  if (shape && (/^\s*(what|which)\b/.test(q) || askedObject(q) !== null)) return { kind: 'identifier', shape, head: stemmed };
  let kind: SlotKind = 'thing';
  if (
    /\b(title|heading) of\b/.test(q) ||
    /^\s*what is (the|this) (\w+ )?(document|presentation|slide deck|deck|page|article|report|paper) (called|titled|named)\b/.test(q)
  )
    kind = 'title';
  else if (DATE_WORDS.test(q)) kind = 'date';
  else if (/^\s*(who|whom|whose)\b/.test(q) || /\bname of the (person|customer|client|author|company)\b/.test(q)) kind = 'name';
  else if (/^\s*how many\b/.test(q) || NUMBER_WORDS.test(q)) kind = 'number';
  else if (MONEY_WORDS.test(q)) kind = 'money';
  else if (/^\s*where\b/.test(q)) kind = 'place';
  else if (head && NAMED.test(head)) kind = 'name';
  return { kind, head: stemmed, ...(kind === 'name' && head && ONE_WORD_NAMES.test(head) ? { single: true } : {}) };
}

/**
 * The noun a what / which question asks about: the last word of the phrase after the question
 * word, before a verb or preposition ("which booking agency handled…" → agency, "what is the
 * receipt's subtotal before…" → subtotal, "what is the value of key2" → key2).
 */
function headNoun(q: string): { head: string | null; last: string | null; phrase: string[] } {
  const phrase = /^\s*(?:what|which)\s+(.*)$/.exec(q)?.[1] ?? askedObject(q);
  // "what did Microsoft buy": a subject and its verb follow, no noun names what is asked.
  if (!phrase || /^(did|does|do|will|would|can|could|should|may|might)\b/.test(phrase)) return { head: null, last: null, phrase: [] };
  const words = splitWords(phrase.replace(/\b[\p{L}\p{N}-]+'s\s+/gu, ' '));
  let i = 0;
  while (i < words.length && /^(is|are|was|were|the|a|an|does|did|do|has|have|had)$/.test(words[i] as string)) i++;
  let head: string | null = null;
  let before: string | null = null;
  const seen: string[] = [];
  for (; i < words.length; i++) {
    const word = words[i] as string;
    if (endsPhrase(word, head !== null)) {
      // "the value of key2": a generic noun asks for what follows it.
      if (word === 'of' && head && !before && GENERIC.has(head) && words[i + 1]) {
        head = null;
        continue;
      }
      if (head) break;
      continue;
    }
    if (ENGLISH_STOPWORDS.has(word)) {
      if (head) break;
      continue;
    }
    before = head;
    head = word;
    seen.push(word);
  }
  // "what policy number": the number of the policy, so the policy is what to find.
  return head && before && IDENTIFIER.test(head)
    ? { head: before, last: `${before} ${head}`, phrase: seen }
    : { head, last: head, phrase: seen };
}

/**
 * What a yes/no question asks to be shown: the words after its verb of having or saying ("does the
 * order have **an estimate number**", "is there a continent…" has none), or null.
 */
export function askedObject(q: string): string | null {
  return YES_NO_OBJECT.exec(q.toLowerCase())?.[1] ?? null;
}

const YES_NO_OBJECT =
  /^\s*(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would)\b.*?\b(?:have|has|had|include|includes|contain|contains|list|lists|show|shows|mention|mentions|give|gives|name|names)\s+(.+)$/;

/** Verbs in the past that end the phrase without an -ed ("which card paid for…"). */
const PAST_VERBS = new Set(
  'paid wrote made sold won led took gave built ran held bought sent got found said told left kept brought began became came went saw put'.split(
    ' ',
  ),
);

/**
 * Whether `word` ends the noun phrase a question asks about (a preposition, an auxiliary, or once
 * the phrase has a noun, a verb in the past: "which booking agency handled…").
 */
export function endsPhrase(word: string, phraseStarted: boolean): boolean {
  return PHRASE_END.has(word) || (phraseStarted && (/ed$/.test(word) || PAST_VERBS.has(word)));
}

const PHRASE_END = new Set(
  'of on for in at by from to with about during before after between per under over than into across since until did does do is was are were has have had will would can could should'.split(
    ' ',
  ),
);

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE = new RegExp(
  `\\b(?:${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}\\s+${MONTH}\\.?,?\\s+\\d{4}|${MONTH}\\.?\\s+\\d{4}|\\d{1,2}/\\d{1,2}/\\d{2,4}|\\d{4}-\\d{2}-\\d{2}|(?:1[5-9]|20)\\d0s|\\d{1,2}(?:st|nd|rd|th)[- ]century|(?:1[5-9]|20)\\d\\d)\\b`,
  'iu',
);
const MONEY = /[$€£¥]\s?-?\d[\d,]*(?:\.\d+)?|-?\d[\d,]*\.\d\d\b|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars|euros)\b/iu;
const NUMBER =
  /(?<![\p{L}\d])-?\d[\d,]*(?:\.\d+)?%?|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|dozen)\b/iu;
/** Two or more capitalised words in a row ("Premier Entertainment Group", "Chi Wang"). */
const NAME = /\b\p{Lu}[\p{Ll}'’.-]*\.?(?:\s+(?:(?:de|van|von|der|da|di|of|&|and)\s+)?\p{Lu}[\p{L}'’.-]*)+/gu;

/** One capitalised word inside a text, not its first ("they founded Traf-O-Data", "sold … to Lenovo"). */
const ONE_NAME = /(?<=[\p{L}\d,;:)]\s+)\p{Lu}[\p{L}\d'’&-]*[\p{L}\d]/gu;

/** A place: a street address, "City, Region", or a line in capitals ("GRANDE PRAIRIE, ALBERTA"). */
const PLACE =
  /\b\d+\s+\p{Lu}[\p{L}\s]+?\s(?:[Ss]treet|St|[Aa]venue|Ave|[Rr]oad|Rd|Blvd|[Bb]oulevard|[Ww]ay|[Dd]rive|Dr|[Ll]ane)\b[^.;]*|\b\p{Lu}[\p{L}-]+(?:\s+\p{Lu}[\p{L}-]+)*,\s+\p{Lu}[\p{L}-]+(?:\s+\p{Lu}[\p{L}-]+)*/gu;

/**
 * The value of the slot's kind that `text` holds and the question does not (a date for "when", a
 * capitalised name for "who"; the question's own words never count as the answer), or null.
 * `thing` takes a key's value (`Insured name: Gabriel Diaz`, `| VIN | 1HG… |`) or a name.
 */
export function slotValue(slot: AnswerSlot, text: string, questionStems: ReadonlySet<string>): string | null {
  // Most of a value's words are not the question's: "Does Model … Matter" is its own title.
  const fresh = (value: string) => {
    const words = splitWords(value).filter((word) => !ENGLISH_STOPWORDS.has(word));
    return words.length > 0 && words.filter((word) => !questionStems.has(stemOf(word))).length * 2 >= words.length;
  };
  // A field's key labels its value and is never the answer itself ("Booking Dates: …" is no name).
  const field = keyValue(text);
  const valueText = field?.value ?? text;
  const first = (pattern: RegExp) => {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    for (const match of valueText.matchAll(global)) {
      const value = pattern === NAME ? withoutLeadingStopwords(match[0]) : match[0].trim();
      if (value && fresh(value)) return value;
    }
    return null;
  };
  switch (slot.kind) {
    case 'money':
      return first(MONEY) ?? first(NUMBER);
    case 'number':
      return first(NUMBER);
    case 'date':
      return first(DATE);
    case 'name':
      return first(NAME) ?? (slot.single ? first(ONE_NAME) : null);
    case 'title':
      return first(NAME);
    case 'place':
      return first(PLACE) ?? first(NAME);
    case 'identifier':
      return first(slot.shape ?? NUMBER);
    case 'thing': {
      const value = field?.value;
      if (value && fresh(value)) return value;
      return first(NAME) ?? first(NUMBER);
    }
  }
}

/** A name without the capitalised function words that start sentences ("The", "In"); null when one word is left. */
function withoutLeadingStopwords(name: string): string | null {
  const words = name.trim().split(/\s+/);
  while (words.length > 0 && ENGLISH_STOPWORDS.has((words[0] as string).toLowerCase())) words.shift();
  return words.length >= 2 ? words.join(' ') : null;
}

/**
 * A field's key and value: `Key: value`, a two-cell table row `| Key | value |`, a key in capitals
 * followed by its value (`TOTAL $821.14`) or a numbered field (`Policy # POL-2022-555`). Null for
 * prose.
 */
export function keyValue(text: string): { key: string; value: string } | null {
  const cells = /^\|(.*)\|$/
    .exec(text.trim())?.[1]
    ?.split('|')
    .map((cell) => cell.trim())
    .filter(Boolean);
  if (cells) return cells.length >= 2 ? { key: cells[0] as string, value: cells.slice(1).join(' | ') } : null;
  const colon = /^([^:]{1,40}):\s*(\S.*)$/.exec(text);
  if (colon && !/[.!?]$/.test(text)) return { key: (colon[1] as string).trim(), value: (colon[2] as string).trim() };
  const caps = /^(\p{Lu}[\p{Lu}\s&/().%-]{1,40}?)\s+([-$€£¥(\d].*)$/u.exec(text);
  if (caps) return { key: (caps[1] as string).trim(), value: (caps[2] as string).trim() };
  // A form's numbered field: "Policy # POL-2022-555", "Store #0342 - Downtown SF".
  const numbered = /^(\p{L}[\p{L}\s]{0,30}?)\s?#\s*(\S.*)$/u.exec(text);
  if (numbered && !/[.!?]$/.test(text)) return { key: `${(numbered[1] as string).trim()} #`, value: (numbered[2] as string).trim() };
  return null;
}
