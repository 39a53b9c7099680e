import type { SpecificationVersion } from './specification.js';

/** A piece of loaded text with the place it came from, so chunks can cite a page or slide. */
export interface LoadedSection {
  text: string;
  /** 1-based page, slide or sheet index when the format has one. */
  pageNumber?: number;
  /** Sheet name, slide title, heading path, ... */
  label?: string;
  /**
   * Chunk this section on its own, never merged with its neighbours: a table section that repeats
   * its header row must start its own chunk so the chunk still names its columns.
   */
  standalone?: boolean;
}

export interface LoadedDocument {
  /** Sections in reading order; the core joins them with blank lines. */
  sections: LoadedSection[];
  /** Title found in the document (HTML `<title>`, PDF info), if any. */
  title?: string;
  mimeType: string;
  /** Total pages or slides when known. */
  totalPages?: number;
  metadata?: Record<string, string | number | boolean | null>;
}

export interface LoadInput {
  bytes: Uint8Array;
  mimeType: string;
  fileName?: string;
  signal?: AbortSignal;
}

/** Parses one family of file formats into text sections. */
export interface Loader {
  readonly name: string;
  /** The port contract this loader implements (`'v1'`). */
  readonly specificationVersion: SpecificationVersion;
  /** Mime types this loader reads. */
  readonly mimeTypes: readonly string[];
  load(input: LoadInput): Promise<LoadedDocument>;
}

/** A file as uploaded: the bytes decide the type; the declared type and name are hints. */
export interface FileInput {
  bytes: Uint8Array;
  mimeType?: string;
  fileName?: string;
}

/**
 * How `file` datasources are read: checks before anything is stored, parses when the sync runs.
 */
export interface FileLoading {
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  /**
   * Validates size and type without parsing; returns the detected mime type. Throws
   * `payload_too_large` or `unsupported_media_type`.
   */
  inspect(file: FileInput): { mimeType: string };
  /**
   * Parses the file. Throws `invalid_request` when a supported file cannot be read. `owner` (the
   * datastore's owner) lets an implementation share its parsers fairly between owners; `maxChars`
   * (the extracted-characters limit) lets it refuse a too-long document where it was parsed.
   * `yieldToOwner` marks a parse the owner did not ask for (an attachment a visitor of the owner's
   * public agent sent): it may wait behind the owner's own queued parses, within the owner's share.
   */
  load(file: FileInput & { signal?: AbortSignal; owner?: string; maxChars?: number; yieldToOwner?: boolean }): Promise<LoadedDocument>;
  /** Releases what loading holds (parser threads); called by `ragdesk.close()` after the last sync. */
  close?(): Promise<void>;
}
