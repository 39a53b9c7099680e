/**
 * Labelled HTML pages for `bench:html-rules`: for each page, strings a reader wants from it
 * (`expected`) and strings of page chrome or hidden text that should not reach the index (`noise`).
 * Corpus pages are read from corpus/docs of the data sets folder when present; the others are the fixtures the
 * file-loader and web-loader tests serve, and one page written for the rules the corpus lacks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFixtures, PLANTED } from '../../fixtures/make-fixtures.js';

export interface LabelledPage {
  name: string;
  html: string;
  expected: readonly string[];
  noise: readonly string[];
}

/** The page the web-loader tests serve at `/article`: every kind of chrome around a short article. */
export const ARTICLE_PAGE = `<!doctype html><html><head><title>Tide Tables Explained</title>
<style>.x { color: red }</style><script>var tracking = "SCRIPT-TEXT";</script></head>
<body>
  <header><div class="logo">HEADER-TEXT</div></header>
  <nav><a href="/about">NAV-TEXT About</a> <a href="/docs#top">Docs</a></nav>
  <div id="cookie-consent">COOKIE-TEXT We use cookies</div>
  <div class="layout has-sidebar">
    <aside>ASIDE-TEXT</aside>
    <main>
      <article>
        <header><h1>How tides work</h1></header>
        <p>The moon pulls the <b>ocean</b> toward it.</p>
        <p style="display: none">HIDDEN-STYLE-TEXT</p>
        <div hidden>HIDDEN-ATTR-TEXT</div>
        <div aria-hidden="true">ARIA-HIDDEN-TEXT</div>
        <h2>Spring tides</h2>
        <ul><li>New moon</li><li>Full moon</li></ul>
        <pre>line one
  line two</pre>
        <div class="share-buttons">SHARE-TEXT</div>
        <noscript>NOSCRIPT-TEXT</noscript>
      </article>
    </main>
  </div>
  <footer>FOOTER-TEXT Copyright</footer>
  <a href="https://other.example/">external</a>
</body></html>`;

/**
 * Written for the rules the corpus does not exercise: a page wrapped in one `<form>` (ASP.NET), chrome
 * known only by class names, `visibility:hidden`, a `<template>`, icon and chart images, a data table.
 */
const EDGE_PAGE = `<!doctype html><html><head><title>Harbour report</title>
<meta name="description" content="Weekly harbour figures"></head><body>
<form id="aspnetForm" action="/report.aspx" method="post">
  <header class="masthead"><a href="/">MASTHEAD-TEXT Port Authority</a></header>
  <div class="site-menu"><a href="/">Home MENU-LINK</a> <a href="/news">News</a></div>
  <div class="breadcrumbs"><a href="/">Home</a> › BREADCRUMB-TEXT</div>
  <div class="cookieNotice">COOKIE-NOTICE-TEXT accept all</div>
  <div class="content">
    <h1>Harbour traffic in March</h1>
    <p>Arrivals rose to 412 ships, the highest since 2019.</p>
    <p><img src="/chart.png" alt="Bar chart of arrivals per week"> Week 3 was the busiest.</p>
    <p><a href="/print"><img src="/print.png" width="16" height="16" alt="PRINT-ICON-ALT"></a> Departures stayed flat.</p>
    <span style="visibility: hidden">VISIBILITY-HIDDEN-TEXT</span>
    <template><p>TEMPLATE-TEXT</p></template>
    <table><caption>Berths</caption><tr><th>Berth</th><th>Ships</th></tr><tr><td>North</td><td>230</td></tr><tr><td>South</td><td>182</td></tr></table>
    <details><summary>Method</summary><p>Counts come from the pilot logs.</p></details>
    <div class="newsletter-signup">NEWSLETTER-TEXT subscribe now</div>
    <input type="text" value="INPUT-VALUE-TEXT"><button>BUTTON-TEXT</button>
  </div>
  <div class="footer-links"><ul><li><a href="/a">Link one</a></li><li><a href="/b">Link two</a></li><li><a href="/c">Link three</a></li><li><a href="/d">Link four</a></li><li><a href="/e">LINK-LIST-TEXT</a></li></ul></div>
</form>
</body></html>`;

function fixturePages(): LabelledPage[] {
  const sample = Buffer.from(buildFixtures()['sample.html'] as Uint8Array).toString('utf8');
  return [
    {
      name: 'fixture: web-loader /article',
      html: ARTICLE_PAGE,
      expected: ['How tides work', 'The moon pulls the ocean toward it.', 'Spring tides', 'New moon', 'Full moon', 'line one'],
      noise: [
        'SCRIPT-TEXT',
        'HEADER-TEXT',
        'NAV-TEXT',
        'COOKIE-TEXT',
        'ASIDE-TEXT',
        'HIDDEN-STYLE-TEXT',
        'HIDDEN-ATTR-TEXT',
        'ARIA-HIDDEN-TEXT',
        'SHARE-TEXT',
        'NOSCRIPT-TEXT',
        'FOOTER-TEXT',
        'color: red',
      ],
    },
    {
      name: 'fixture: file-loaders sample.html',
      html: sample,
      expected: ['Main heading', `Main text ${PLANTED.html}.`, 'first item', 'second item'],
      noise: [PLANTED.htmlHidden, 'Site header', 'color:red'],
    },
    {
      name: 'written: form-wrapped page',
      html: EDGE_PAGE,
      expected: [
        'Harbour traffic in March',
        'Arrivals rose to 412 ships',
        'Bar chart of arrivals per week',
        'Week 3 was the busiest.',
        'Departures stayed flat.',
        'North 230',
        'South 182',
        'Counts come from the pilot logs.',
      ],
      noise: [
        'MASTHEAD-TEXT',
        'MENU-LINK',
        'BREADCRUMB-TEXT',
        'COOKIE-NOTICE-TEXT',
        'PRINT-ICON-ALT',
        'VISIBILITY-HIDDEN-TEXT',
        'TEMPLATE-TEXT',
        'NEWSLETTER-TEXT',
        'INPUT-VALUE-TEXT',
        'BUTTON-TEXT',
        'LINK-LIST-TEXT',
      ],
    },
  ];
}

/** Labels of the corpus's HTML files, chosen by reading each page. */
const CORPUS_LABELS: ReadonlyArray<Omit<LabelledPage, 'html'> & { file: string }> = [
  {
    name: 'corpus: markitdown blog post',
    file: 'markitdown/test_blog.html',
    expected: [
      // The corpus's own expected strings first.
      'Large language models (LLMs) are powerful tools that can generate natural language texts for various applications, such as chatbots, summarization, translation, and more. GPT-4 is currently the state of the art LLM in the world. Is model selection irrelevant? What about inference parameters?',
      'an example where high cost can easily prevent a generic complex',
      'Principal Researcher at Microsoft Research',
      'temperature: The parameter that controls the randomness of the output text.',
      'level 2 algebra',
      'level 5 algebra',
      'Experiment Results',
      'Please join our Discord server for discussion.',
    ],
    noise: [
      'Skip to main content',
      "What's new in AutoGen?",
      'Recent posts',
      'StateFlow - Build LLM Workflows',
      'Newer Post',
      'Copyright © 2024 AutoGen Authors',
      'Privacy and Cookies',
      'Other Languages',
    ],
  },
  {
    name: 'corpus: markitdown Wikipedia (Microsoft)',
    file: 'markitdown/test_wikipedia.html',
    expected: [
      'Microsoft entered the operating system (OS) business in 1980 with its own version of Unix',
      'Microsoft was founded by Bill Gates',
      'headquartered in Redmond',
      'Satya Nadella',
      'US$211.9 billion (2023)',
      'A square divided into four sub-squares',
      'Third Microsoft logo',
    ],
    noise: [
      'You are encouraged to create an account and log in',
      '154 languages',
      'move to sidebar',
      'Jump to content',
      'Main menu',
      'Privacy policy',
      'This page was last edited',
      'Edit this at Wikidata',
      'Page semi-protected',
      'Increase US$',
      'Powered by MediaWiki',
      'Retrieved from "https',
      'Hidden categories',
      'Toggle the table of contents',
      'What links here',
      'Afrikaans',
      'Companies in the Nasdaq-100',
    ],
  },
  {
    name: 'corpus: docling Wikipedia (Duck)',
    file: 'docling/html/sources/wiki_duck.html',
    expected: [
      'Duck is the common name for numerous species of waterfowl in the family Anatidae.',
      'A male is called a drake and the female is called a duck',
      'Pacific black duck displaying the characteristic upending',
      'Bufflehead (Bucephala albeola)',
      'Kingdom: Animalia',
      'A brown duck in a fast-flowing stream',
    ],
    noise: [
      '136 languages',
      'move to sidebar',
      'Jump to content',
      'Edit this classification',
      'Edit this at Wikidata',
      'Page semi-protected',
      'Hidden categories',
      'Retrieved from "https',
      'Powered by MediaWiki',
      'Toggle the table of contents',
      'Afrikaans',
      'This page was last edited',
      'Articles with short description',
    ],
  },
  {
    name: 'corpus: docling rich table cells',
    file: 'docling/html/sources/html_rich_table_cells.html',
    expected: ['Often seen near ponds.', 'Fly south in winter', 'White-headed duck thumbnail', 'quaaaaaack', 'Hawser, Common Pochard'],
    noise: [],
  },
  {
    name: 'corpus: docling example_03',
    file: 'docling/html/sources/example_03.html',
    expected: ['Example Document', 'Nested ordered item 2', 'Row 3, Col 3', 'Some background information here.'],
    noise: ['border-collapse'],
  },
  {
    name: 'corpus: docling nested tables',
    file: 'docling/html/sources/table_06.html',
    expected: ['This is the first paragraph.', 'E4', 'VIII', 'After table'],
    noise: ['border-collapse'],
  },
];

/** Every labelled page; corpus pages only when `corpusDir` exists. */
export function labelledPages(corpusDir: string): LabelledPage[] {
  const corpus = existsSync(corpusDir)
    ? CORPUS_LABELS.filter((label) => existsSync(join(corpusDir, label.file))).map(({ file, ...label }) => ({
        ...label,
        html: readFileSync(join(corpusDir, file), 'utf8'),
      }))
    : [];
  return [...corpus, ...fixturePages()];
}
