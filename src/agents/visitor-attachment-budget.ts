import { RagdeskError } from '../errors.js';
import type { AttachmentClock, AttachmentLimits } from './attachment-limits.js';

/** Agents whose visitor budget is remembered at most (the least recently used are forgotten first). */
const MAX_AGENTS = 10_000;

interface AgentShare {
  /** Attachments visitors may still start reading now (refilled at the per-minute rate). */
  tokens: number;
  at: number;
  running: number;
  waiting: Array<() => void>;
}

/**
 * One attachment budget per agent, shared by all of its visitors: anonymous callers can mint any
 * number of visitor ids and addresses, so a budget per visitor would bound nothing. A rate (a
 * token bucket of `visitorAttachmentsPerMinute`, full when idle) and a number read at once; the
 * owner's own queries do not draw on it.
 */
export class VisitorAttachmentBudget {
  private readonly shares = new Map<string, AgentShare>();

  constructor(
    private readonly limits: AttachmentLimits,
    private readonly clock: AttachmentClock,
  ) {}

  /** How many of `wanted` attachments the agent's visitors may read now; those are taken. */
  take(agentId: string, wanted: number): number {
    const share = this.share(agentId);
    const rate = this.limits.visitorAttachmentsPerMinute;
    const time = this.clock.now();
    share.tokens = Math.min(rate, share.tokens + ((time - share.at) / 60_000) * rate);
    share.at = time;
    const granted = Math.min(wanted, Math.floor(share.tokens));
    share.tokens -= granted;
    return granted;
  }

  /** Waits for one of the agent's reading slots; resolves with its release. Rejects when `signal` aborts first. */
  async enter(agentId: string, signal: AbortSignal): Promise<() => void> {
    const share = this.share(agentId);
    if (share.running >= this.limits.visitorConcurrency) {
      await new Promise<void>((resolve, reject) => {
        const go = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          share.waiting.splice(share.waiting.indexOf(go), 1);
          reject(abortReason(signal));
        };
        share.waiting.push(go);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    share.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      share.running--;
      share.waiting.shift()?.();
    };
  }

  private share(agentId: string): AgentShare {
    let share = this.shares.get(agentId);
    if (share) {
      this.shares.delete(agentId);
    } else {
      share = { tokens: this.limits.visitorAttachmentsPerMinute, at: this.clock.now(), running: 0, waiting: [] };
    }
    this.shares.set(agentId, share);
    if (this.shares.size > MAX_AGENTS) {
      for (const [id, old] of this.shares) {
        if (old.running === 0 && old.waiting.length === 0) {
          this.shares.delete(id);
          break;
        }
      }
    }
    return share;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new RagdeskError('aborted', 'The query was aborted');
}
