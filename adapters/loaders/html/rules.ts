/**
 * What the HTML extractor keeps and drops, as data: `HTML_RULES` is the one rule set both the file
 * loader and the web loader use. The other values of each field exist so `bench:html-rules` can
 * measure every rule against the alternatives on labelled pages (docs/decisions/011-one-html-extractor.md has the figures).
 */
export interface HtmlRules {
  /** Elements removed with all they hold: never shown as text, or page chrome by tag or ARIA role. */
  removed: readonly string[];
  /** `[hidden]` and `[aria-hidden="true"]`. */
  hiddenAttributes: boolean;
  /** Inline `display:none` and `visibility:hidden`. */
  hiddenStyles: boolean;
  /**
   * Removed like chrome unless they wrap the page (hold `main`/`article` or most of its text): an
   * ASP.NET page is one `<form>` around everything.
   */
  chromeTags: readonly string[];
  /** A `header` outside `article` and `main` (the site banner); an article's own header stays. */
  pageHeader: boolean;
  /**
   * Class or id names of page chrome: `tokens` must match a whole word of the name (`share` but not
   * `shared`), `anywhere` may sit inside one (`cookieBanner`, `site-sidebar`). Undefined: names unused.
   */
  chromeNames: { tokens: RegExp; anywhere: RegExp } | undefined;
  /** Lists and tables that are nearly all link text (language pickers, navboxes). */
  linkLists: boolean;
  /** `main` (or `[role=main]`), else the only `article`, rather than the whole body. */
  contentRoot: boolean;
  /**
   * Image alt texts: all; all but icons (an image declared at most 32 px wide or high); only those of
   * images outside links; or none.
   */
  altText: 'all' | 'not-icons' | 'outside-links' | 'none';
  /** Table rows as Markdown lines (`| a | b |`, as DOCX and CSV tables) or cells joined by spaces. */
  tables: 'pipes' | 'spaces';
  /** The first `h1` becomes the title when the page has no `<title>`. */
  titleFromHeading: boolean;
}

/** Content that is never rendered, controls, embedded objects and chrome named by tag or role. */
const NEVER_TEXT = ['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed'];
const CONTROLS = ['select', 'button', 'input', 'textarea', 'label', 'dialog'];
const CHROME_TAGS = ['nav', 'footer', 'aside'];

const CHROME_ROLES = ['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'menu', 'toolbar'].map(
  (role) => `[role="${role}"]`,
);

export const HTML_RULES: HtmlRules = {
  removed: [...NEVER_TEXT, ...CONTROLS, ...CHROME_ROLES],
  chromeTags: [...CHROME_TAGS, 'form'],
  hiddenAttributes: true,
  hiddenStyles: true,
  pageHeader: true,
  chromeNames: {
    tokens: /(^|[^a-z])(nav|navbar|navbox|navigation|menu|banner|toc|skip|jump|toolbar|share|sharing|social|subscribe)([^a-z]|$)/,
    anywhere: /cookie|consent|newsletter|breadcrumb|sidebar|footer/,
  },
  linkLists: true,
  contentRoot: true,
  altText: 'not-icons',
  tables: 'pipes',
  titleFromHeading: true,
};
