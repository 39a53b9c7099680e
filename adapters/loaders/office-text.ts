import type { OfficeContentNode, OfficeParserAST } from 'officeparser';
import { tableLine } from './table-text.js';

/**
 * Plain text of officeparser AST nodes: one block per line, tables as Markdown table lines, images
 * by their alt text, charts by their title and data labels, notes after the content they annotate.
 * Headers, footers, slide masters and comments are left out: they repeat on every page or are not
 * part of the document's text.
 */
export function renderNodes(nodes: readonly OfficeContentNode[] | undefined, ast: OfficeParserAST): string {
  return (nodes ?? [])
    .map((node) => renderNode(node, ast))
    .filter((text) => text.trim() !== '')
    .join('\n');
}

function renderNode(node: OfficeContentNode, ast: OfficeParserAST): string {
  const own = renderOwn(node, ast);
  const notes = renderNodes(node.notes, ast);
  return notes === '' ? own : `${own}\n${notes}`;
}

function renderOwn(node: OfficeContentNode, ast: OfficeParserAST): string {
  switch (node.type) {
    case 'table':
      return (node.children ?? []).map((row) => tableLine((row.children ?? []).map((cell) => cellText(cell, ast)))).join('\n');
    case 'image':
      return altText(node);
    case 'chart':
      return [chartTitle(node, ast), node.text ?? ''].filter((part) => part.trim() !== '').join('\n');
    case 'header':
    case 'footer':
    case 'slideMaster':
    case 'comment':
      return '';
    case 'break':
      return '';
    default: {
      const children = node.children ?? [];
      // Leaf-like blocks carry their joined text; containers are rendered child by child so that
      // images, tables and nested lists inside them are not lost.
      const hasBlocks = children.some((child) => child.type !== 'text' && child.type !== 'break');
      if (!hasBlocks && node.text !== undefined) return node.text;
      return renderNodes(children, ast);
    }
  }
}

export function cellText(cell: OfficeContentNode, ast: OfficeParserAST): string {
  const children = cell.children ?? [];
  if (cell.text !== undefined && !children.some((child) => child.type === 'table' || child.type === 'image')) {
    return cell.text;
  }
  return renderNodes(children, ast).replace(/\n+/g, ' ');
}

function altText(node: OfficeContentNode): string {
  const metadata = node.metadata as { altText?: unknown } | undefined;
  return typeof metadata?.altText === 'string' ? metadata.altText.trim() : '';
}

function chartTitle(node: OfficeContentNode, ast: OfficeParserAST): string {
  const name = (node.metadata as { attachmentName?: unknown } | undefined)?.attachmentName;
  const attachment = ast.attachments.find((candidate) => candidate.name === name);
  const title = (attachment as { chartData?: { title?: unknown } } | undefined)?.chartData?.title;
  return typeof title === 'string' ? title : '';
}

/** The first heading (or, failing that, first non-empty line) of a slide: its title. */
export function firstHeading(nodes: readonly OfficeContentNode[] | undefined): string | undefined {
  const heading = (nodes ?? []).find((node) => node.type === 'heading' && (node.text ?? '').trim() !== '');
  return heading?.text?.trim();
}
