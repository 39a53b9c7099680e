import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { releaseBuffer } from '../../../adapters/kit/release-buffer.js';

const anonymousMiB = () => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

describe('releaseBuffer', () => {
  it.runIf(process.platform === 'linux')('gives a buffer of its own back to the system at once', async () => {
    const buffer = Buffer.allocUnsafeSlow(128 * 1024 * 1024).fill(1);
    const filled = anonymousMiB();
    releaseBuffer(buffer);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(buffer.length).toBe(0);
    expect(filled - anonymousMiB()).toBeGreaterThan(100);
  });

  it("leaves a slice of a larger memory (Node's shared pool) alone", () => {
    const pooled = Buffer.allocUnsafe(64).fill(2);
    const neighbour = Buffer.allocUnsafe(64).fill(3);
    releaseBuffer(pooled);
    expect(pooled.length).toBe(64);
    expect(neighbour.every((byte) => byte === 3)).toBe(true);
    const slice = Buffer.allocUnsafeSlow(1024).subarray(16, 32);
    releaseBuffer(slice);
    expect(slice.length).toBe(16);
  });
});
