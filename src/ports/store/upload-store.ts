/**
 * A file a chat visitor uploads through an upload link, to attach to a message of one agent's
 * conversation. Short-lived: written once within `uploadBefore`, readable until `keepUntil`.
 */
export interface UploadRecord {
  /** `rdu_` and random characters; appears in the upload's URLs. */
  id: string;
  /** SHA-256 (hex) of the link's secret; the secret itself is never stored. */
  secretHash: string;
  /** The owner of the agent, so stores can be partitioned like the agent's records. */
  ownerId: string | null;
  agentId: string;
  conversationId: string;
  /** When the link was made for a known visitor, only that visitor's messages may attach it. */
  visitorId: string | null;
  fileName: string;
  mimeType: string;
  /** The most bytes the one upload may have. */
  maxBytes: number;
  createdAt: string;
  /** The upload (`PUT`) must happen before this. */
  uploadBefore: string;
  /** After this the file is refused and may be deleted. */
  keepUntil: string;
  /** When the bytes were written; null until then (and then never again: one upload per link). */
  uploadedAt: string | null;
  /** The bytes' length once uploaded. */
  size: number | null;
}

/** Upload links' records and bytes (Store conformance: `uploads`). */
export interface UploadStore {
  /** Inserts a record with `uploadedAt` null. Throws `conflict` on a duplicate id. */
  createUpload(record: UploadRecord): Promise<void>;
  /** The record (without bytes), or null for an unknown id. */
  getUpload(id: string): Promise<UploadRecord | null>;
  /**
   * Writes the bytes once, atomically: only when the upload exists, has no bytes yet and `at` is
   * before its `uploadBefore`. Returns the updated record, or null when any of that fails (unknown,
   * already uploaded, or expired), so two racing uploads cannot both succeed.
   */
  completeUpload(id: string, upload: { bytes: Uint8Array; at: string }): Promise<UploadRecord | null>;
  /** The uploaded bytes, or null when the id is unknown or nothing was uploaded yet. */
  getUploadBytes(id: string): Promise<Uint8Array | null>;
  /** Deletes every upload whose `keepUntil` is before `cutoff`; returns how many. */
  deleteUploadsBefore(cutoff: string): Promise<number>;
}
