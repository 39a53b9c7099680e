/**
 * The HTML tree the extractor reads (built by `parse-html.ts`): elements and text only, siblings
 * linked both ways so removing one costs O(1), and the walks the extractor needs, all iterative.
 */

interface HtmlText {
  kind: 'text';
  data: string;
  parent: HtmlElement | null;
  prev: HtmlNode | null;
  next: HtmlNode | null;
}

export interface HtmlElement {
  kind: 'element';
  /** Lower-case tag name; '' for the document itself. */
  name: string;
  /** Attribute names lower-cased; the first of repeated names wins, as in browsers. */
  attributes: Readonly<Record<string, string>>;
  parent: HtmlElement | null;
  prev: HtmlNode | null;
  next: HtmlNode | null;
  firstChild: HtmlNode | null;
  lastChild: HtmlNode | null;
}

export type HtmlNode = HtmlElement | HtmlText;

export function newElement(name: string, attributes: Record<string, string>, parent: HtmlElement | null): HtmlElement {
  return { kind: 'element', name, attributes, parent, prev: null, next: null, firstChild: null, lastChild: null };
}

export function appendChild(parent: HtmlElement, child: HtmlNode): void {
  child.prev = parent.lastChild;
  if (parent.lastChild) parent.lastChild.next = child;
  else parent.firstChild = child;
  parent.lastChild = child;
}

/** Takes `node` out of the tree; removing a node whose ancestor is already gone is harmless. */
export function removeNode(node: HtmlNode): void {
  const parent = node.parent;
  if (!parent) return;
  if (node.prev) node.prev.next = node.next;
  else parent.firstChild = node.next;
  if (node.next) node.next.prev = node.prev;
  else parent.lastChild = node.prev;
  node.prev = null;
  node.next = null;
  // What was under it still points up to it; a parent of null marks the cut for `isAttached` walks.
  node.parent = null;
}

export function childElements(parent: HtmlElement): HtmlElement[] {
  const children: HtmlElement[] = [];
  for (let child = parent.firstChild; child; child = child.next) if (child.kind === 'element') children.push(child);
  return children;
}

/**
 * Calls `visit` on every element under `root` (not `root` itself) in document order, without
 * recursion; `visit` returns `'skip'` to leave out the element's subtree, `'stop'` to end the walk.
 */
export function eachElement(root: HtmlElement, visit: (element: HtmlElement) => 'skip' | 'stop' | void): void {
  let node: HtmlNode | null = root.firstChild;
  while (node) {
    let descend = false;
    if (node.kind === 'element') {
      const next = visit(node);
      if (next === 'stop') return;
      descend = next !== 'skip' && node.firstChild !== null;
    }
    if (descend) {
      node = (node as HtmlElement).firstChild;
      continue;
    }
    // Up to the next sibling of the nearest ancestor that has one, never above `root`.
    while (node && !node.next) node = node.parent === root ? null : node.parent;
    node = node?.next ?? null;
  }
}

/** Calls `visit` on the text runs under `element` in document order until it returns true. */
function eachText(element: HtmlElement, visit: (data: string) => boolean | void): void {
  let current: HtmlNode | null = element.firstChild;
  while (current) {
    if (current.kind === 'text') {
      if (visit(current.data) === true) return;
    } else if (current.firstChild) {
      current = current.firstChild;
      continue;
    }
    while (current && !current.next) current = current.parent === element ? null : current.parent;
    current = current?.next ?? null;
  }
}

/** All text under `node`, concatenated (the DOM's `textContent`). */
export function textContent(node: HtmlNode | null | undefined): string {
  if (!node) return '';
  if (node.kind === 'text') return node.data;
  const parts: string[] = [];
  eachText(node, (data) => void parts.push(data));
  return parts.join('');
}

/** Whether any text under `element` is more than whitespace; stops at the first that is. */
export function hasText(element: HtmlElement): boolean {
  let found = false;
  eachText(element, (data) => {
    found = /\S/.test(data);
    return found;
  });
  return found;
}

/** Whitespace-collapsed text, for titles and size comparisons. */
export function inlineText(node: HtmlNode | null | undefined): string {
  return textContent(node).replace(/\s+/g, ' ').trim();
}
