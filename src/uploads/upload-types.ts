/**
 * File types an upload link accepts: the ones the file loaders read (images are refused: the chat
 * models here take none). Browsers leave `File.type` empty for some files (often `.md`), so the
 * extension decides then.
 */
export const UPLOAD_TYPES: Readonly<Record<string, readonly string[]>> = {
  'application/pdf': ['.pdf'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['.docx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['.pptx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['.xlsx'],
  'text/csv': ['.csv'],
  'application/json': ['.json'],
  'text/markdown': ['.md', '.markdown'],
  'text/html': ['.html', '.htm'],
  'text/plain': ['.txt', '.text', '.log'],
};

/** The type an upload is made for, or null when links are not made for it. */
export function uploadTypeOf(mimeType: string | undefined, fileName: string): string | null {
  const declared = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  if (declared !== '' && declared !== 'application/octet-stream') return declared in UPLOAD_TYPES ? declared : null;
  const extension = /\.[a-z0-9]{1,10}$/i.exec(fileName)?.[0]?.toLowerCase();
  if (extension === undefined) return null;
  for (const [type, extensions] of Object.entries(UPLOAD_TYPES)) if (extensions.includes(extension)) return type;
  return null;
}
