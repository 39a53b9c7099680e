import { z } from 'zod';
import { parseInput } from '../validation.js';

/**
 * What one query's attachments may cost. Each attachment is fetched under the web loader's own
 * per-request limits; these bound the query as a whole, so a handful of slow or huge files cannot
 * hold one request (and a parser) for minutes.
 */
export interface AttachmentLimits {
  /** Attachments read per query; the rest are skipped with a warning. Default 5. */
  maxAttachments: number;
  /** Bytes fetched for all attachments of a query together. Default 20 MiB. */
  maxBytes: number;
  /** Time for all attachments of a query together, fetches and parses alike. Default 20 000 ms. */
  deadlineMs: number;
  /** Redirects followed per attachment (lowers the web loader's `maxRedirects`). Default 3. */
  maxRedirects: number;
  /**
   * What all visitors of one agent share (anyone but its owner): attachments read per minute
   * (default 30) and attachments read at once (default 2). Past the rate, attachments are skipped
   * with a warning; past the concurrency they wait, within the query's deadline.
   */
  visitorAttachmentsPerMinute: number;
  visitorConcurrency: number;
}

const DEFAULT_ATTACHMENT_LIMITS: AttachmentLimits = {
  maxAttachments: 5,
  maxBytes: 20 * 1024 * 1024,
  deadlineMs: 20_000,
  maxRedirects: 3,
  visitorAttachmentsPerMinute: 30,
  visitorConcurrency: 2,
};

/**
 * Time as the attachment limits see it. Tests replace it so a deadline fires when they say, not
 * when a machine gets round to it.
 * @internal
 */
export interface AttachmentClock {
  now(): number;
  /** Calls `fire` after `ms`; the returned function cancels it. */
  after(ms: number, fire: () => void): () => void;
}

export const SYSTEM_CLOCK: AttachmentClock = {
  now: () => performance.now(),
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

const count = z.int().min(0).max(1_000_000);
export const attachmentLimitsSchema = z
  .object({
    maxAttachments: z.int().min(0).max(10),
    maxBytes: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
    deadlineMs: z.int().min(1).max(3_600_000),
    maxRedirects: z.int().min(0).max(20),
    visitorAttachmentsPerMinute: count,
    visitorConcurrency: z.int().min(1).max(100),
  })
  .partial();

export function resolveAttachmentLimits(input: Partial<AttachmentLimits> | undefined): AttachmentLimits {
  parseInput(attachmentLimitsSchema, input ?? {}, 'agents.attachments');
  return { ...DEFAULT_ATTACHMENT_LIMITS, ...input };
}
