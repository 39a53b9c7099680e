/**
 * Where a peer stops in the scaling run, and why. Each limit was measured, not guessed: see
 * benchmarks/README.md ("Peer comparison").
 */
import type { PeerMode } from './peer.js';

export interface ScalingLimit {
  maxChunks?: number;
  maxChunksReason?: string;
  skipModes?: { mode: PeerMode; reason: string }[];
}

export const SCALING_LIMITS: Record<string, ScalingLimit> = {
  vectra: {
    maxChunks: 50_000,
    maxChunksReason:
      'index.json is one JSON string, 432 MB at 50k 384-d items; growing it to 100k failed in endUpdate() with "RangeError: Invalid string length" (V8 strings stop at ~512 MiB), measured 2026-11-22',
    skipModes: [{ mode: 'hybrid', reason: "rebuilds a BM25 index over every chunk (reading each chunk's file) on every query" }],
  },
};
