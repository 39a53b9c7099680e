/**
 * How deep and how big a DOM an HTML document will build, measured without building it.
 *
 * Why: linkedom parses with htmlparser2, whose open-element stack is an array it `unshift`s and
 * `shift`s and searches with `indexOf`, so parsing costs O(depth) per tag: 100,000 nested `<div>`s
 * take minutes. And every node costs linkedom ~350 bytes, so a 50 MB file of `<p>w</p>` needs
 * several GB of heap (a crash by out-of-memory, or minutes of garbage collection first). This scan
 * mirrors htmlparser2's tokenizer and stack rules closely enough to give the stack depth and node
 * count it will reach, in one linear pass with O(1) stack operations, and stops as soon as a limit
 * is passed, so loaders can refuse such a document before handing it to the parser.
 *
 * Dependency-free on purpose: the file loaders and the web loader both use it.
 */

export interface MarkupLimits {
  /** Deepest element nesting allowed. */
  maxDepth: number;
  /** Most nodes (elements, attributes, text runs, comments) allowed. */
  maxNodes: number;
}

export interface MarkupShape {
  /** Deepest open-element stack seen (or the first depth past the limit). */
  depth: number;
  /** Nodes counted (up to the first count past the limit). */
  nodes: number;
  /** Which limit was passed first, if any; the scan stopped there. */
  exceeded?: 'depth' | 'nodes';
}

/**
 * Defaults for HTML handed to linkedom. Browsers flatten beyond 512 levels (Blink); real pages
 * rarely pass 100. A million nodes is ~350 MB of linkedom heap and several seconds of parsing.
 */
export const DEFAULT_MARKUP_LIMITS: Readonly<MarkupLimits> = { maxDepth: 1024, maxNodes: 1_000_000 };

// htmlparser2 (10.x) Parser tables: opening the key closes an open top-of-stack element in the set.
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const OPEN_IMPLIES_CLOSE = new Map<string, ReadonlySet<string>>(
  Object.entries({
    tr: ['tr', 'th', 'td'],
    th: ['th'],
    td: ['thead', 'th', 'td'],
    body: ['head', 'link', 'script'],
    li: ['li'],
    p: P,
    h1: P,
    h2: P,
    h3: P,
    h4: P,
    h5: P,
    h6: P,
    select: FORM,
    input: FORM,
    output: FORM,
    button: FORM,
    datalist: FORM,
    textarea: FORM,
    option: ['option'],
    optgroup: ['optgroup', 'option'],
    dd: ['dd', 'dt'],
    dt: ['dd', 'dt'],
    address: P,
    article: P,
    aside: P,
    blockquote: P,
    details: P,
    div: P,
    dl: P,
    fieldset: P,
    figcaption: P,
    figure: P,
    footer: P,
    form: P,
    header: P,
    hr: P,
    main: P,
    nav: P,
    ol: P,
    pre: P,
    section: P,
    table: P,
    ul: P,
    rt: ['rt', 'rp'],
    rp: ['rt', 'rp'],
    tbody: ['thead', 'tbody'],
    tfoot: ['thead', 'tbody'],
  }).map(([name, closes]) => [name, new Set(closes)]),
);
const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const FOREIGN = new Set(['math', 'svg']);
const INTEGRATION = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);
/** Their content is text up to the matching end tag (htmlparser2's "special" tags). */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);

const isSpace = (code: number): boolean => code === 32 || code === 10 || code === 9 || code === 12 || code === 13;
const isAlpha = (code: number): boolean => (code | 0x20) >= 97 && (code | 0x20) <= 122;

/** Scans `html` once; see the module comment. Never throws. */
export function measureMarkup(html: string, limits: MarkupLimits = DEFAULT_MARKUP_LIMITS): MarkupShape {
  return new MarkupScan(html, limits).run();
}

class MarkupScan {
  private readonly stack: string[] = [];
  /** Open elements per name, so a close tag with no open element is rejected in O(1). */
  private readonly openCount = new Map<string, number>();
  private readonly foreign: boolean[] = [];
  private depth = 0;
  private nodes = 0;
  private exceeded: MarkupShape['exceeded'];
  private position = 0;

  constructor(
    private readonly html: string,
    private readonly limits: MarkupLimits,
  ) {}

  run(): MarkupShape {
    const { html } = this;
    while (this.position < html.length && this.exceeded === undefined) {
      const open = html.indexOf('<', this.position);
      if (open === -1) {
        this.count(1); // trailing text
        break;
      }
      if (open > this.position) this.count(1);
      this.position = open + 1;
      this.tag();
    }
    return { depth: this.depth, nodes: this.nodes, ...(this.exceeded ? { exceeded: this.exceeded } : {}) };
  }

  private tag(): void {
    const { html } = this;
    const code = html.charCodeAt(this.position);
    if (code === 33 /* ! */) {
      if (html.startsWith('--', this.position + 1)) return this.skipPast('-->', 1);
      if (html.startsWith('[CDATA[', this.position + 1)) return this.skipPast(']]>', 1);
      return this.skipPast('>', 0); // doctype and other declarations make no node
    }
    if (code === 63 /* ? */) return this.skipPast('>', 0);
    if (code === 47 /* / */) return this.closeTag();
    if (isAlpha(code)) return this.openTag();
    this.count(1); // a lone '<' is text
  }

  private closeTag(): void {
    const { html } = this;
    let start = this.position + 1;
    while (start < html.length && isSpace(html.charCodeAt(start))) start++; // `</ p>` closes a p
    if (!isAlpha(html.charCodeAt(start))) {
      this.position = start;
      this.skipPast('>', 1); // a bogus comment (or nothing, for `</>`)
      return;
    }
    let end = start;
    while (end < html.length && !isSpace(html.charCodeAt(end)) && html.charCodeAt(end) !== 62) end++;
    const name = html.slice(start, end).toLowerCase();
    this.position = end;
    this.skipPast('>', 0);
    this.onCloseTag(name);
  }

  private openTag(): void {
    const { html } = this;
    let end = this.position;
    while (end < html.length && !isSpace(html.charCodeAt(end)) && html.charCodeAt(end) !== 47 && html.charCodeAt(end) !== 62) end++;
    const name = html.slice(this.position, end).toLowerCase();
    this.position = end;
    const selfClosing = this.attributes();
    if (selfClosing === undefined) return; // the document ended inside the tag: htmlparser2 drops it
    this.onOpenTag(name);
    const recognisedSelfClosing = selfClosing && this.foreign.at(-1) === true;
    if (recognisedSelfClosing) {
      if (this.stack.at(-1) === name) this.pop();
    } else if (RAW_TEXT.has(name) && !selfClosing) {
      // The tokenizer reads `<title/>` as a tag even where the parser keeps the element open.
      this.rawText(name);
    }
  }

  /** Reads attributes up to the tag's `>`; returns whether it ended with `/>`, or undefined at end of input. */
  private attributes(): boolean | undefined {
    const { html } = this;
    let slash = false;
    while (this.position < html.length) {
      const code = html.charCodeAt(this.position);
      if (code === 62 /* > */) {
        this.position++;
        return slash;
      }
      if (isSpace(code)) {
        this.position++;
        continue;
      }
      if (code === 47 /* / */) {
        slash = true;
        this.position++;
        continue;
      }
      slash = false;
      this.count(1);
      if (this.exceeded) return undefined;
      // Attribute name, then an optional `= value` (quoted values may hold '>').
      while (this.position < html.length) {
        const c = html.charCodeAt(this.position);
        if (c === 61 /* = */ || c === 47 || c === 62 || isSpace(c)) break;
        this.position++;
      }
      let after = this.position;
      while (after < html.length && isSpace(html.charCodeAt(after))) after++;
      if (html.charCodeAt(after) !== 61) continue;
      after++;
      while (after < html.length && isSpace(html.charCodeAt(after))) after++;
      const quote = html.charCodeAt(after);
      if (quote === 34 || quote === 39) {
        const close = html.indexOf(quote === 34 ? '"' : "'", after + 1);
        if (close === -1) {
          this.position = html.length; // the value runs to the end: no tag, no more markup
          return undefined;
        }
        this.position = close + 1;
      } else {
        this.position = after;
        while (this.position < html.length && !isSpace(html.charCodeAt(this.position)) && html.charCodeAt(this.position) !== 62)
          this.position++;
      }
    }
    return undefined;
  }

  /** Skips the text of a raw-text element up to `</name` followed by a tag end. */
  private rawText(name: string): void {
    const pattern = new RegExp(`</${name}[\\s/>]`, 'gi');
    pattern.lastIndex = this.position;
    const match = pattern.exec(this.html);
    if (match === null) {
      if (this.position < this.html.length) this.count(1);
      this.position = this.html.length;
      return;
    }
    if (match.index > this.position) this.count(1);
    this.position = match.index + 1;
    this.closeTag();
  }

  private onOpenTag(name: string): void {
    const closes = OPEN_IMPLIES_CLOSE.get(name);
    if (closes) while (this.stack.length > 0 && closes.has(this.stack.at(-1) as string)) this.pop();
    this.count(1);
    if (VOID.has(name)) return this.reach(this.stack.length + 1);
    this.stack.push(name);
    this.openCount.set(name, (this.openCount.get(name) ?? 0) + 1);
    if (FOREIGN.has(name)) this.foreign.push(true);
    else if (INTEGRATION.has(name)) this.foreign.push(false);
    this.reach(this.stack.length);
  }

  /** An element now sits at `depth` (void and implied elements too, though they are never open). */
  private reach(depth: number): void {
    if (depth <= this.depth) return;
    this.depth = depth;
    if (depth > this.limits.maxDepth) this.exceeded ??= 'depth';
  }

  private onCloseTag(name: string): void {
    if (FOREIGN.has(name) || INTEGRATION.has(name)) this.foreign.pop();
    if (VOID.has(name)) {
      if (name === 'br') {
        this.count(1); // `</br>` becomes a <br>
        this.reach(this.stack.length + 1);
      }
      return;
    }
    if ((this.openCount.get(name) ?? 0) > 0) {
      while (this.pop() !== name) {
        // pops the elements opened inside it, as the parser's implied closes do
      }
    } else if (name === 'p') {
      this.count(1); // `</p>` without `<p>` becomes an empty paragraph
      this.reach(this.stack.length + 1);
    }
  }

  private pop(): string | undefined {
    const name = this.stack.pop();
    if (name !== undefined) this.openCount.set(name, (this.openCount.get(name) as number) - 1);
    return name;
  }

  private count(nodes: number): void {
    this.nodes += nodes;
    if (this.nodes > this.limits.maxNodes) this.exceeded ??= 'nodes';
  }

  /** Moves past the next `marker` (or to the end), counting `nodes` for what was skipped. */
  private skipPast(marker: string, nodes: number): void {
    const found = this.html.indexOf(marker, this.position);
    this.position = found === -1 ? this.html.length : found + marker.length;
    this.count(nodes);
  }
}
