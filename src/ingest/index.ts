export { chunkSections, chunkSectionsYielding, type ChunkOptions, type TextChunk } from './chunker.js';
export { cleanText } from './text-clean.js';
export { cl100kTokenizer, type Tokenizer } from './tokenizer.js';
