/**
 * The selectors `HtmlRules` and the extractor use, and only those: a comma-separated list of
 * compounds, each an optional tag name followed by `[name]` or `[name="value"]` tests. Anything else
 * throws when the selector is compiled, so a rule the matcher cannot honour fails loudly.
 */
import { eachElement, type HtmlElement } from './dom.js';

export type ElementTest = (element: HtmlElement) => boolean;

const COMPOUND = /^([a-z][a-z0-9-]*|\*)?((?:\[[a-z][a-z0-9_:-]*(?:=(?:"[^"]*"|'[^']*'))?\])*)$/i;
const ATTRIBUTE = /\[([a-z][a-z0-9_:-]*)(?:=(?:"([^"]*)"|'([^']*)'))?\]/gi;
const compiled = new Map<string, ElementTest>();

/**
 * One test for a selector list, compiled once per distinct string. Plain tag names go to a set:
 * the rule lists are mostly tags, and the test runs on every element of the page several times.
 */
export function selectorTest(selector: string): ElementTest {
  let test = compiled.get(selector);
  if (!test) {
    test = compile(selector);
    compiled.set(selector, test);
  }
  return test;
}

interface Compound {
  tag: string | undefined;
  attributes: Array<{ name: string; value: string | undefined }>;
}

function compile(selector: string): ElementTest {
  if (selector.trim() === '') return () => false;
  const compounds = selector.split(',').map((part) => parseCompound(part.trim(), selector));
  const tags = new Set(compounds.filter((part) => part.tag !== undefined && part.attributes.length === 0).map((part) => part.tag!));
  const others = compounds.filter((part) => part.tag === undefined || part.attributes.length > 0);
  return (element) => tags.has(element.name) || others.some((part) => matches(element, part));
}

function parseCompound(part: string, selector: string): Compound {
  const match = COMPOUND.exec(part);
  if (!match || part === '') throw new Error(`unsupported selector "${selector}": only tags and [attribute] / [attribute="value"] tests`);
  const tag = match[1] === undefined || match[1] === '*' ? undefined : match[1].toLowerCase();
  const attributes = [...(match[2] ?? '').matchAll(ATTRIBUTE)].map((test) => ({ name: test[1]!.toLowerCase(), value: test[2] ?? test[3] }));
  return { tag, attributes };
}

function matches(element: HtmlElement, { tag, attributes }: Compound): boolean {
  if (tag !== undefined && element.name !== tag) return false;
  for (const { name, value } of attributes) {
    const actual = element.attributes[name];
    if (actual === undefined || (value !== undefined && actual !== value)) return false;
  }
  return true;
}

/** Elements under `root` (not `root` itself) matching `selector`, in document order. */
export function selectAll(root: HtmlElement, selector: string): HtmlElement[] {
  const test = selectorTest(selector);
  const found: HtmlElement[] = [];
  eachElement(root, (element) => {
    if (test(element)) found.push(element);
  });
  return found;
}

/** The first element under `root` matching `selector`. */
export function selectFirst(root: HtmlElement, selector: string): HtmlElement | undefined {
  const test = selectorTest(selector);
  let found: HtmlElement | undefined;
  eachElement(root, (element) => {
    if (!test(element)) return;
    found = element;
    return 'stop';
  });
  return found;
}

/** `element` or its nearest ancestor matching `selector` (the DOM's `closest`). */
export function closest(element: HtmlElement | null, selector: string): HtmlElement | undefined {
  const test = selectorTest(selector);
  for (let current = element; current && current.name !== ''; current = current.parent) if (test(current)) return current;
  return undefined;
}
