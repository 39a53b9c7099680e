/**
 * HTML to the extractor's tree (`dom.ts`), straight from htmlparser2's callbacks, within limits.
 *
 * Why not a DOM library: linkedom (which parses with the same htmlparser2) spent 3.7 s of CPU and
 * ~256 bytes per node on a page of 220,000 links, most of it bookkeeping the extractor never reads
 * (a WeakMap entry and an event-listener map per node, attributes as nodes, a node per comment).
 * This tree holds the same elements and text, built from the same parser events, in ~80 bytes per
 * node and a fraction of the time. Comments, doctypes and CDATA are never shown, so never built.
 *
 * Why the limits: htmlparser2 keeps its open elements in an array it `unshift`s and searches, so
 * parsing costs O(depth) per tag (100,000 nested `<div>`s take minutes), and every node is heap.
 * The depth and the nodes (elements, attributes, text runs, comments) are counted as the parser
 * reports them and the parse stops at the first one past its limit, so neither cost is ever paid
 * beyond it.
 */
import { Parser } from 'htmlparser2';
import { appendChild, newElement, type HtmlElement } from './dom.js';

export interface MarkupLimits {
  /** Deepest element nesting allowed. */
  maxDepth: number;
  /** Most nodes (elements, attributes, text runs, comments) allowed. */
  maxNodes: number;
}

/** Browsers flatten beyond 512 levels (Blink); real pages rarely pass 100. A million nodes is ~80 MB of tree. */
export const DEFAULT_MARKUP_LIMITS: Readonly<MarkupLimits> = { maxDepth: 1024, maxNodes: 1_000_000 };

export type ParsedHtml = { document: HtmlElement } | { exceeded: 'depth' | 'nodes' };

/** Thrown from a parser callback to stop the parse; never leaves `parseHtml`. */
class LimitPassed extends Error {
  constructor(readonly limit: 'depth' | 'nodes') {
    super(`markup ${limit} limit passed`);
  }
}

/** Parses `html` (entities decoded, HTML tokenizer rules, attribute names lower-cased). */
export function parseHtml(html: string, limits: MarkupLimits = DEFAULT_MARKUP_LIMITS): ParsedHtml {
  const document = newElement('', {}, null);
  let open = document;
  let depth = 0;
  let nodes = 0;
  const count = (): void => {
    if (++nodes > limits.maxNodes) throw new LimitPassed('nodes');
  };
  const parser = new Parser(
    {
      onattribute: count,
      oncomment: count,
      onopentag(name, attributes) {
        count();
        if (++depth > limits.maxDepth) throw new LimitPassed('depth');
        const child = newElement(name, attributes, open);
        appendChild(open, child);
        open = child;
      },
      onclosetag() {
        depth--;
        open = open.parent ?? document;
      },
      ontext(data) {
        const last = open.lastChild;
        // The parser hands text over in pieces (around entities, at buffer ends): one node per run.
        if (last?.kind === 'text') last.data += data;
        else {
          count();
          appendChild(open, { kind: 'text', data, parent: open, prev: null, next: null });
        }
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true, recognizeCDATA: false },
  );
  try {
    parser.end(html);
  } catch (error) {
    if (error instanceof LimitPassed) return { exceeded: error.limit };
    throw error;
  }
  return { document };
}
