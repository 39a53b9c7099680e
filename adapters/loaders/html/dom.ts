/** The slice of linkedom's DOM the HTML extractor uses, typed here so the project needs no DOM lib. */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  textContent: string | null;
}

export interface DomElement extends DomNode {
  tagName: string;
  id: string;
  className: string;
  parentElement: DomElement | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  closest(selector: string): DomElement | null;
  remove(): void;
}

export interface DomDocument {
  documentElement: DomElement;
  body: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export const TEXT_NODE = 3;
export const ELEMENT_NODE = 1;

/** Whitespace-collapsed text, for titles and size comparisons. */
export function inlineText(node: DomNode | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}
