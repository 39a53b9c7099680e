import type { IndexSource, OpenResult } from '../../../src/ports/index.js';
import { Collection, type CollectionIdentity, type GraphSettings } from '../collection/collection.js';
import { writeState } from '../collection/handle.js';
import { type IndexHeader, readHeader, removeOtherFiles, verifiedBinary } from './persistence.js';
import { checkEntries } from '../../kit/vector-index-input.js';
import type { GraphThread } from '../graph/graph-thread.js';

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
  thread: GraphThread,
): Promise<Loaded> {
  const rebuild = (reason: string) => build(identity, directory, source, settings, thread, reason);
  const read = await readHeader(directory);
  if (!read.ok) return rebuild(read.reason);
  const { header } = read;
  if (header.datastoreId !== identity.datastoreId) return rebuild('corrupt');
  if (header.model !== identity.model || header.dimensions !== identity.dimensions) return rebuild('model_changed');
  if (header.sequence !== (await source.sequence())) return rebuild('stale');
  let binary: string;
  try {
    binary = await verifiedBinary(directory, header);
  } catch {
    return rebuild('corrupt');
  }
  // Leftovers of a crash go while the binary loads (nothing else writes here during an open, and
  // the removal never rejects); it is over before a rebuild writes new files.
  const removing = removeOtherFiles(directory, header.binary.file);
  let state: Collection;
  try {
    state = await loadCollection(identity, header, binary, source, thread);
  } catch {
    await removing;
    return rebuild('corrupt');
  }
  await removing;
  return { state, result: { rebuilt: false } };
}

/**
 * Loads a verified binary. A links-only binary (version 2 on) gets the live vectors back from the
 * source: the header's sequence matched the source's, so the source holds exactly the vectors the
 * graph was built with.
 */
async function loadCollection(
  identity: CollectionIdentity,
  header: IndexHeader,
  binary: string,
  source: IndexSource,
  thread: GraphThread,
): Promise<Collection> {
  if (header.version === 1) return Collection.load(identity, header, binary, thread);
  const vectorsOf = source.vectorsOf?.bind(source);
  return Collection.load(identity, header, binary, thread, { vectors: source.vectors?.() ?? source.entries(), vectorsOf });
}

/**
 * The collection once its vectors are all back (a restore brings them after it answers searches);
 * when the store and the file turn out not to match on the way, a rebuild from the source (the
 * caller releases the loaded one).
 */
export async function settleLoad(
  loaded: Loaded,
  identity: CollectionIdentity,
  directory: string,
  source: IndexSource,
  settings: GraphSettings,
  thread: GraphThread,
): Promise<Loaded> {
  try {
    await loaded.state.filled;
    return loaded;
  } catch {
    return build(identity, directory, source, settings, thread, 'corrupt');
  }
}

/** Builds from the source and writes at once: a rebuild costs far more than a write. */
export async function build(
  identity: CollectionIdentity,
  directory: string,
  source: IndexSource,
  settings: GraphSettings,
  thread: GraphThread,
  reason: string,
): Promise<Loaded> {
  const sequence = await source.sequence();
  const state = Collection.empty(identity, settings, thread);
  try {
    for await (const batch of source.entries()) {
      checkEntries(batch, identity.dimensions);
      state.upsert(batch);
      await state.room();
    }
    state.sequence = sequence;
    state.dirty = true;
    await writeState(state, directory);
  } catch (error) {
    state.release();
    throw error;
  }
  return { state, result: { rebuilt: true, reason } };
}
