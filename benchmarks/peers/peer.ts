/**
 * The one interface every compared library is driven through. A peer file adapts one library to it
 * and nothing else: the runner, the scoring and the timing are shared, so no peer gets a different
 * measurement.
 */

export type PeerMode = 'vector' | 'lexical' | 'hybrid';

/** A source document (BEIR id and text: title + abstract). */
export interface SourceDocument {
  id: string;
  text: string;
}

/** A chunk cut once by the shared chunker, with its vector embedded once (the shared-vectors run). */
export interface PreparedChunk {
  docId: string;
  text: string;
  /** Offset of `text` in the cleaned document text (Vectra's BM25 mode reads chunk text from there). */
  charOffset: number;
  vector: Float32Array;
}

/**
 * The embedder every peer uses: the offline local embedder, or a lookup of precomputed vectors
 * (shared-vectors run, where embedding then costs nothing and only the store is measured).
 */
export interface TextEmbedder {
  readonly model: string;
  readonly dimensions: number;
  /** Hybrid-fusion weight the embedder asks for (ragdesk reads it; other peers use their defaults). */
  readonly fusionWeight?: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface Hit {
  /** BEIR document id the chunk came from. */
  docId: string;
  score: number;
}

export interface PeerInfo {
  /** Flag value (`--peer`). */
  id: string;
  /** Name in tables and charts. */
  label: string;
  /** Library and version, as installed. */
  library: string;
  modes: readonly PeerMode[];
  /** `disk`: persists by itself; `manual`: can be saved by the caller; `memory`: in-memory only. */
  storage: 'disk' | 'manual' | 'memory';
  /** Whose chunker the text run uses. */
  chunker: string;
  notes: readonly string[];
}

interface OpenOptions {
  /** Empty folder the peer may write to. */
  dir: string;
  embedder: TextEmbedder;
  /** Vectors the index will hold, so fixed-capacity indexes are sized once. */
  expectedChunks: number;
}

interface ClosedPeer {
  /** Bytes under `dir` after closing (persisted form), or null when the peer keeps nothing on disk. */
  diskBytes: number | null;
  /** Time spent writing the persisted form on close (ms). */
  persistMs: number;
}

export interface Peer {
  /**
   * Text to searchable: chunks with the peer's own splitter (the shared chunker when it has none),
   * embeds with `embedder`, stores. May be called several times (batches of documents).
   */
  ingestDocuments(documents: readonly SourceDocument[]): Promise<{ chunks: number }>;
  /** Stores chunks chunked and embedded in advance. May be called several times. */
  ingestChunks(chunks: readonly PreparedChunk[], documents: ReadonlyMap<string, SourceDocument>): Promise<{ chunks: number }>;
  /**
   * Waits for what the peer still does in the background once an ingest call has returned (ragdesk:
   * the graph inserts behind an upsert that is already searchable). Absent when there is nothing.
   */
  settle?(): Promise<void>;
  /** Top `k` chunks for the query, best first; the peer embeds the query itself when it needs to. */
  search(query: string, mode: PeerMode, k: number): Promise<Hit[]>;
  /** Persists (when `persist` and the peer can) and releases everything. */
  close(persist: boolean): Promise<ClosedPeer>;
}

export type PeerFactory =
  { info: PeerInfo; available: true; open(options: OpenOptions): Promise<Peer> } | { info: PeerInfo; available: false; reason: string };
