/** File loaders: CSV, text, Markdown, HTML, JSON, PDF, DOCX, PPTX, XLSX, with type sniffing and limits. */
export {
  fileLoaders,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_UNCOMPRESSED_BYTES,
  DEFAULT_MAX_PAGES,
  type FileLoaderOptions,
  type FileLoaderList,
} from './builtin-loaders.js';
export { loadFile, type LoadFileInput } from './load-by-type.js';
export { detectMimeType, type DetectOptions } from './detect-mime.js';
export { MIME, SUPPORTED_MIME_TYPES, isSupportedMimeType, type SupportedMimeType } from './mime-types.js';
export { extractHtml, type ExtractedHtml, type ExtractHtmlOptions } from './html/extract-html.js';
export { fileLoading, type FileLoadingOptions } from './file-loading-port.js';
