/** What a child process reports back to `main.ts` (JSON in the file named by `--out`). */
import type { LatencyResult, QualityResult } from './measure.js';
import type { PeerInfo, PeerMode } from './peer.js';

export interface Unavailable {
  kind: 'unavailable';
  info: PeerInfo;
  reason: string;
}

export interface ModeResult {
  mode: PeerMode;
  quality: QualityResult;
  latency: LatencyResult;
}

export interface ScifactResult {
  kind: 'scifact';
  info: PeerInfo;
  vectors: 'local' | 'shared';
  documents: number;
  chunks: number;
  ingestSeconds: number;
  /** CPU seconds of the child during ingestion (steadier than wall time on a loaded machine). */
  ingestCpuSeconds: number;
  /**
   * Seconds until the peer's background work after the ingest was done too (`Peer.settle`: for
   * ragdesk every vector in its graph); equal to `ingestSeconds` for a peer without any.
   */
  settledSeconds?: number;
  /** 1-minute load average when the child started and ended. */
  loadAverage: [number, number];
  /** Peak RSS of the child after loading the data, before the peer's library was imported (MiB). */
  baselineRssMiB: number;
  peakRssMiB: number;
  diskBytes: number | null;
  persistMs: number;
  modes: ModeResult[];
}

export interface ScalingPoint {
  chunks: number;
  /** Seconds from empty to `chunks` searchable (cumulative over the steps). */
  ingestSeconds: number;
  chunksPerSecond: number;
  ingestCpuSeconds: number;
  peakRssMiB: number;
  latency: Partial<Record<PeerMode, LatencyResult>>;
}

export interface ScalingResult {
  kind: 'scaling';
  info: PeerInfo;
  dimensions: number;
  /** Largest size measured, when capped below the requested sizes, and why. */
  cap: { chunks: number; reason: string } | null;
  skippedModes: { mode: PeerMode; reason: string }[];
  points: ScalingPoint[];
}

export interface VectraUpsertResult {
  kind: 'vectra-upsert';
  documents: number;
  seconds: number;
  documentsPerSecond: number;
  lastDocumentMs: number;
}

export type ChildResult = Unavailable | ScifactResult | ScalingResult | VectraUpsertResult;
