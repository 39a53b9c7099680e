import { readHeader, type IndexHeader } from '../../adapters/hnsw/files/persistence.js';

/** A collection's header as the index reads it; throws when it has none a load would accept. */
export async function writtenHeader(directory: string): Promise<IndexHeader> {
  const read = await readHeader(directory);
  if (!read.ok) throw new Error(`no header: ${read.detail}`);
  return read.header;
}
