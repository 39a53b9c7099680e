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
      'index.json is one JSON string: ~7.5 KB per 384-d item, so 100k items (~750 MB) exceed V8\'s maximum string length (512 MiB) and endUpdate() throws',
    skipModes: [{ mode: 'hybrid', reason: 'rebuilds a BM25 index over every chunk (reading each chunk\'s file) on every query' }],
  },
};
