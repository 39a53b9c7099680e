/**
 * bench:html-rules — which HTML extraction rules keep what a reader wants and drop the chrome.
 * Every rule set runs on the same labelled pages (benchmarks/lib/html-pages.ts: the corpus's HTML
 * files and the loaders' test fixtures); for each it counts the expected strings kept and the noise
 * strings (navigation, banners, hidden text, icons) kept, after the corpus test's normalisation.
 * The chosen rules (`HTML_RULES`) are the reference; each other row changes one rule, or
 * reproduces what the file loader and the web loader did before they shared one extractor.
 *
 *   npm run bench:html-rules -- [--corpus <folder>]
 */
import { extractHtmlWith } from '../adapters/loaders/html/extract-html.js';
import { HTML_RULES, type HtmlRules } from '../adapters/loaders/html/rules.js';
import { normaliseForMatch } from '../fixtures/normalise.js';
import { labelledPages, type LabelledPage } from './lib/html-pages.js';
import { datasetPath } from '../fixtures/datasets.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const CORPUS = args.get('corpus') ?? datasetPath('corpus', 'docs');

const NEVER_TEXT = ['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed'];
const roles = (...names: string[]): string[] => names.map((name) => `[role="${name}"]`);

/** What `adapters/loaders/html-*.ts` applied to uploaded files until 2026-11-25. */
const FILE_LOADER_BEFORE: HtmlRules = {
  removed: [
    ...NEVER_TEXT,
    ...['select', 'button', 'nav', 'footer', 'aside', 'form', 'dialog', 'input', 'label'],
    ...roles('navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'menu', 'toolbar'),
  ],
  chromeTags: [],
  hiddenAttributes: true,
  hiddenStyles: false,
  pageHeader: true,
  chromeNames: {
    tokens: /(^|[\s_-])(nav|navbar|navbox|navigation|menu|sidebar|breadcrumbs?|cookies?|toc|skip|jump|toolbar|share|social)([\s_-]|$)/,
    anywhere: /(?!)/,
  },
  linkLists: true,
  contentRoot: true,
  altText: 'all',
  tables: 'pipes',
  titleFromHeading: false,
};

/** What `adapters/web/extract-html.ts` applied to fetched pages until 2026-11-25. */
const WEB_LOADER_BEFORE: HtmlRules = {
  removed: [
    ...NEVER_TEXT,
    ...['nav', 'footer', 'aside', 'form', 'button', 'select', 'dialog'],
    ...roles('navigation', 'banner', 'contentinfo', 'dialog'),
  ],
  chromeTags: [],
  hiddenAttributes: true,
  hiddenStyles: true,
  pageHeader: true,
  chromeNames: {
    tokens: /(^|[^a-z])(banner|subscribe|share|sharing|menu)([^a-z]|$)/,
    anywhere: /cookie|consent|newsletter|breadcrumb|sidebar/,
  },
  linkLists: false,
  contentRoot: true,
  altText: 'none',
  tables: 'spaces',
  titleFromHeading: true,
};

const VARIANTS: ReadonlyArray<[string, HtmlRules]> = [
  ['chosen (HTML_RULES)', HTML_RULES],
  ['before: file loader', FILE_LOADER_BEFORE],
  ['before: web loader', WEB_LOADER_BEFORE],
  ['alt text: all', { ...HTML_RULES, altText: 'all' }],
  ['alt text: not icons (<= 32 px)', { ...HTML_RULES, altText: 'not-icons' }],
  ['alt text: outside links only', { ...HTML_RULES, altText: 'outside-links' }],
  ['alt text: none', { ...HTML_RULES, altText: 'none' }],
  ['inline display:none kept', { ...HTML_RULES, hiddenStyles: false }],
  ['hidden / aria-hidden kept', { ...HTML_RULES, hiddenAttributes: false }],
  ['no class/id chrome names', { ...HTML_RULES, chromeNames: undefined }],
  ['class/id names of the file loader', { ...HTML_RULES, chromeNames: FILE_LOADER_BEFORE.chromeNames }],
  ['class/id names of the web loader', { ...HTML_RULES, chromeNames: WEB_LOADER_BEFORE.chromeNames }],
  [
    'class/id names without `footer`',
    { ...HTML_RULES, chromeNames: { tokens: HTML_RULES.chromeNames!.tokens, anywhere: /cookie|consent|newsletter|breadcrumb|sidebar/ } },
  ],
  ['link lists kept', { ...HTML_RULES, linkLists: false }],
  ['whole body (no main/article)', { ...HTML_RULES, contentRoot: false }],
  ['page header kept', { ...HTML_RULES, pageHeader: false }],
  ['form always removed', { ...HTML_RULES, removed: [...HTML_RULES.removed, 'form'] }],
  ['tables as spaces', { ...HTML_RULES, tables: 'spaces' }],
];

interface PageScore {
  page: string;
  expectedKept: number;
  expected: number;
  noiseKept: number;
  noise: number;
  missing: string[];
  noiseFound: string[];
  chars: number;
}

function score(page: LabelledPage, rules: HtmlRules): PageScore {
  const { text } = extractHtmlWith(page.html, { pageUrl: 'https://pages.test/page' }, rules);
  const normalised = normaliseForMatch(text);
  const found = (needle: string) => normalised.includes(normaliseForMatch(needle));
  const missing = page.expected.filter((needle) => !found(needle));
  const noiseFound = page.noise.filter(found);
  return {
    page: page.name,
    expectedKept: page.expected.length - missing.length,
    expected: page.expected.length,
    noiseKept: noiseFound.length,
    noise: page.noise.length,
    missing,
    noiseFound,
    chars: text.length,
  };
}

function main(): void {
  const pages = labelledPages(CORPUS);
  if (pages.length === 0) throw new Error('no labelled pages');
  const corpusPages = pages.filter((page) => page.name.startsWith('corpus:')).length;
  if (corpusPages === 0) console.log(`note: no corpus at ${CORPUS}; fixtures only`);
  const rows: Row[] = [];
  const details: Record<string, PageScore[]> = {};
  for (const [name, rules] of VARIANTS) {
    const scores = pages.map((page) => score(page, rules));
    const sum = (pick: (page: PageScore) => number) => scores.reduce((total, page) => total + pick(page), 0);
    rows.push({
      rules: name,
      'expected kept': `${sum((page) => page.expectedKept)}/${sum((page) => page.expected)}`,
      'noise kept': `${sum((page) => page.noiseKept)}/${sum((page) => page.noise)}`,
      'pages complete': `${scores.filter((page) => page.expectedKept === page.expected).length}/${scores.length}`,
      'text chars': sum((page) => page.chars),
    });
    details[name] = scores;
  }
  printTable(`HTML extraction rules on ${pages.length} labelled pages (${corpusPages} from the corpus)`, rows);
  const chosen = details[VARIANTS[0]![0]] ?? [];
  for (const page of chosen.filter((entry) => entry.missing.length > 0 || entry.noiseFound.length > 0)) {
    console.log(`chosen rules, ${page.page}: missing ${JSON.stringify(page.missing)}, noise ${JSON.stringify(page.noiseFound)}`);
  }
  writeResult('html-rules', { pages: pages.map((page) => page.name), rows, details });
}

main();
