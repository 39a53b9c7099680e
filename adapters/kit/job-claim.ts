import type { JobRecord } from '../../src/ports/records.js';
import type { JobClaim, JobPatch } from '../../src/ports/store.js';

/** What a successful `claimJob` writes (the port's contract): running, leased to the claimant, one more attempt. */
export function claimPatch(job: JobRecord, claim: JobClaim): JobPatch {
  return {
    status: 'running',
    leaseOwner: claim.owner,
    leaseUntil: claim.leaseUntil,
    attempts: job.attempts + 1,
    updatedAt: claim.now,
  };
}
