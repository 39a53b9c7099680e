export { chunkSections, chunkSectionsYielding, type TextChunk } from './chunker.js';
export { cleanText } from './text-clean.js';
export { cl100kTokenizer, type Tokenizer } from './tokenizer.js';
