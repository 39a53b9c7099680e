import type { IndexSource, OpenResult } from '../../src/ports/index.js';
import { Collection, type CollectionIdentity, type GraphSettings } from './collection.js';
import { writeState } from './handle.js';
import { readHeader, removeOtherFiles, verifiedBinary } from './persistence.js';
import { checkEntries } from '../kit/vector-index-input.js';

export interface Loaded {
  state: Collection;
  result: OpenResult;
}

/**
 * Loads the persisted collection when it can be trusted, else rebuilds it from the source. Cheap
 * checks (header, model, sequence) come before reading the binary; the binary is checksummed before
 * hnswlib sees it.
 */
export async function loadOrBuild(
  identity: CollectionIdentity,
  directory: string,
  source: IndexSource,
  settings: GraphSettings,
): Promise<Loaded> {
  const read = await readHeader(directory);
  if (!read.ok) return build(identity, directory, source, settings, read.reason);
  const { header } = read;
  if (header.datastoreId !== identity.datastoreId) return build(identity, directory, source, settings, 'corrupt');
  if (header.model !== identity.model || header.dimensions !== identity.dimensions) {
    return build(identity, directory, source, settings, 'model_changed');
  }
  if (header.sequence !== (await source.sequence())) return build(identity, directory, source, settings, 'stale');
  let binary: string;
  try {
    binary = await verifiedBinary(directory, header);
  } catch {
    return build(identity, directory, source, settings, 'corrupt');
  }
  // Leftovers of a crash go while the binary loads (nothing else writes here during an open, and
  // the removal never rejects); it is over before a rebuild writes new files.
  const removing = removeOtherFiles(directory, header.binary.file);
  let state: Collection;
  try {
    state = await Collection.load(identity, header, binary);
  } catch {
    await removing;
    return build(identity, directory, source, settings, 'corrupt');
  }
  await removing;
  return { state, result: { rebuilt: false } };
}

/** Builds from the source and writes at once: a rebuild costs far more than a write. */
export async function build(
  identity: CollectionIdentity,
  directory: string,
  source: IndexSource,
  settings: GraphSettings,
  reason: string,
): Promise<Loaded> {
  const sequence = await source.sequence();
  const state = Collection.empty(identity, settings);
  for await (const batch of source.entries()) {
    checkEntries(batch, identity.dimensions);
    state.upsert(batch);
  }
  state.sequence = sequence;
  state.dirty = true;
  await writeState(state, directory);
  return { state, result: { rebuilt: true, reason } };
}
