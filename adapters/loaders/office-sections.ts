import type { OfficeContentNode, OfficeParserAST } from 'officeparser';
import type { LoadedDocument, LoadedSection } from '../../src/ports/loader.js';
import { cellText, firstHeading, renderNodes } from './office-text.js';
import { tableSections } from './table-text.js';

/** Turns officeparser's AST into sections: one per PDF page, one per slide, row groups per sheet. */
export function officeSections(ast: OfficeParserAST, mimeType: string, maxColumns?: number): LoadedDocument {
  const base = baseDocument(ast, mimeType);
  switch (ast.type) {
    case 'pdf': {
      const pages = ast.content.filter((node) => node.type === 'page');
      const sections = pages.map((page, index) => ({
        text: page.text?.trim() ? page.text : renderNodes(page.children, ast),
        pageNumber: numberIn(page.metadata, 'pageNumber') ?? index + 1,
      }));
      return { ...base, sections: nonEmpty(sections), totalPages: ast.metadata.pages ?? pages.length };
    }
    case 'pptx': {
      const slides = ast.content.filter((node) => node.type === 'slide');
      const sections = slides.map((slide, index): LoadedSection => {
        const title = firstHeading(slide.children);
        return {
          text: renderNodes(slide.children, ast),
          pageNumber: numberIn(slide.metadata, 'slideNumber') ?? index + 1,
          ...(title === undefined ? {} : { label: title }),
        };
      });
      return { ...base, sections: nonEmpty(sections), totalPages: slides.length };
    }
    case 'xlsx': {
      const sheets = ast.content.filter((node) => node.type === 'sheet');
      const sections = sheets.flatMap((sheet, index) => {
        const name = stringIn(sheet.metadata, 'sheetName') ?? `Sheet${index + 1}`;
        // The sheet name heads every section so each chunk says where its rows come from.
        return tableSections(sheetRows(sheet, ast), {
          label: name,
          pageNumber: index + 1,
          caption: `Sheet: ${name}`,
          ...(maxColumns === undefined ? {} : { maxColumns }),
        });
      });
      return { ...base, sections, metadata: { ...base.metadata, sheets: sheets.length } };
    }
    default:
      return { ...base, sections: nonEmpty([{ text: renderNodes(ast.content, ast) }]) };
  }
}

function baseDocument(ast: OfficeParserAST, mimeType: string): LoadedDocument {
  const title = ast.metadata.title?.trim();
  const author = ast.metadata.author?.trim();
  return {
    mimeType,
    sections: [],
    ...(title ? { title } : {}),
    metadata: author ? { author } : {},
  };
}

/** Cells placed by their column index, empty rows dropped, trailing empty cells trimmed. */
function sheetRows(sheet: OfficeContentNode, ast: OfficeParserAST): string[][] {
  const rows: string[][] = [];
  for (const row of sheet.children ?? []) {
    const cells: string[] = [];
    (row.children ?? []).forEach((cell, position) => {
      cells[numberIn(cell.metadata, 'col') ?? position] = cellText(cell, ast).trim();
    });
    const filled = Array.from(cells, (cell) => cell ?? '');
    while (filled.length > 0 && filled[filled.length - 1] === '') filled.pop();
    if (filled.length > 0) rows.push(filled);
  }
  return rows;
}

function nonEmpty(sections: LoadedSection[]): LoadedSection[] {
  return sections.filter((section) => section.text.trim() !== '');
}

function numberIn(metadata: unknown, key: string): number | undefined {
  const value = (metadata as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stringIn(metadata: unknown, key: string): string | undefined {
  const value = (metadata as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
