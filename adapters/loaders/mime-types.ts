/** Mime types the file loaders read: the eight that Datasource Create accepts plus `text/html`. */
export const MIME = {
  csv: 'text/csv',
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  json: 'application/json',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

export type SupportedMimeType = (typeof MIME)[keyof typeof MIME];

export const SUPPORTED_MIME_TYPES: readonly SupportedMimeType[] = Object.values(MIME);

/**
 * Types recognised only to be refused by name (a clearer 415 than "unknown bytes"). They are never
 * returned as supported.
 */
export const KNOWN_UNSUPPORTED = {
  octetStream: 'application/octet-stream',
  zip: 'application/zip',
  epub: 'application/epub+zip',
  ole: 'application/x-cfb',
  xls: 'application/vnd.ms-excel',
  doc: 'application/msword',
  ppt: 'application/vnd.ms-powerpoint',
  ipynb: 'application/x-ipynb+json',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
} as const;

/** File extension (lower case, no dot) → mime type. Used only when the bytes cannot decide. */
export const EXTENSION_MIME: Readonly<Record<string, string>> = {
  csv: MIME.csv,
  tsv: MIME.csv,
  txt: MIME.text,
  text: MIME.text,
  log: MIME.text,
  md: MIME.markdown,
  markdown: MIME.markdown,
  mdx: MIME.markdown,
  html: MIME.html,
  htm: MIME.html,
  xhtml: MIME.html,
  json: MIME.json,
  pdf: MIME.pdf,
  docx: MIME.docx,
  pptx: MIME.pptx,
  xlsx: MIME.xlsx,
  ipynb: KNOWN_UNSUPPORTED.ipynb,
  xls: KNOWN_UNSUPPORTED.xls,
  doc: KNOWN_UNSUPPORTED.doc,
  ppt: KNOWN_UNSUPPORTED.ppt,
  epub: KNOWN_UNSUPPORTED.epub,
};

/** Aliases seen in the wild (browsers, curl, older servers) mapped onto the canonical type. */
const ALIASES: Readonly<Record<string, string>> = {
  'text/x-markdown': MIME.markdown,
  'text/md': MIME.markdown,
  'application/csv': MIME.csv,
  'text/comma-separated-values': MIME.csv,
  'application/vnd.ms-excel.csv': MIME.csv,
  'text/tab-separated-values': MIME.csv,
  'text/json': MIME.json,
  'application/xhtml+xml': MIME.html,
  'application/x-pdf': MIME.pdf,
};

/** Lower-cases, drops parameters (`; charset=...`) and maps aliases; `undefined` for empty input. */
export function normaliseMimeType(value: string | undefined): string | undefined {
  const bare = value?.split(';')[0]?.trim().toLowerCase();
  if (!bare) return undefined;
  return ALIASES[bare] ?? bare;
}

export function extensionOf(fileName: string | undefined): string | undefined {
  const match = /\.([a-z0-9]+)$/i.exec(fileName?.trim() ?? '');
  return match?.[1]?.toLowerCase();
}

export function isSupportedMimeType(value: string): value is SupportedMimeType {
  return (SUPPORTED_MIME_TYPES as readonly string[]).includes(value);
}
