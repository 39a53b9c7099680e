import { loopThreadCpuMs } from './thread-cpu.js';

/**
 * Event-loop stall attribution for benchmarks: a timeline of adapter calls (each one a span from call
 * to settle) and a ticker that records every gap between ticks longer than a threshold, so the
 * longest stall can be matched to the calls that ran inside it.
 */

export interface Span {
  kind: string;
  start: number;
  end: number;
}

export interface Gap {
  start: number;
  end: number;
  ms: number;
  /**
   * CPU time the event-loop thread used during the gap (see loopThreadCpuMs). A gap much longer
   * than its CPU time is the OS running other processes: on a shared machine only the CPU part is
   * the code's doing.
   */
  cpuMs: number;
}

export class Timeline {
  readonly spans: Span[] = [];
  enabled = false;

  record(kind: string, start: number, end: number): void {
    if (this.enabled) this.spans.push({ kind, start, end });
  }

  clear(): void {
    this.spans.length = 0;
  }

  /** Milliseconds of each kind inside [start, end], largest first, plus what no span covers. */
  attribute(gap: { start: number; end: number }, exclude: ReadonlySet<string> = new Set()): { kind: string; ms: number }[] {
    const byKind = new Map<string, number>();
    let covered = 0;
    for (const span of this.spans) {
      if (exclude.has(span.kind)) continue;
      const overlap = Math.min(span.end, gap.end) - Math.max(span.start, gap.start);
      if (overlap <= 0) continue;
      byKind.set(span.kind, (byKind.get(span.kind) ?? 0) + overlap);
      covered += overlap;
    }
    const rows = [...byKind.entries()].map(([kind, ms]) => ({ kind, ms }));
    rows.push({ kind: '(no instrumented call)', ms: Math.max(0, gap.end - gap.start - covered) });
    return rows.sort((a, b) => b.ms - a.ms);
  }

  /** Longest single span of each kind. */
  longest(): Map<string, number> {
    const result = new Map<string, number>();
    for (const span of this.spans) result.set(span.kind, Math.max(result.get(span.kind) ?? 0, span.end - span.start));
    return result;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Wraps every method of an adapter so each call becomes a span named by `kindOf` (undefined: not
 * recorded). `until: 'return'` ends the span when the method returns (adapters that do all their
 * work synchronously, like better-sqlite3 and the local embedder: the span is then exactly that
 * work); `'settle'` ends it when the returned promise settles (work queued in microtasks, like the
 * hnsw adapter's serial queue), which can also include other microtask chains' work.
 */
export function instrument<T extends object>(
  target: T,
  timeline: Timeline,
  kindOf: (method: string, args: readonly unknown[]) => string | undefined,
  until: 'return' | 'settle',
  onSettled?: (method: string, args: readonly unknown[], end: number) => void,
): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const kind = kindOf(property, args);
        const start = performance.now();
        const result = (value as (...a: unknown[]) => unknown).apply(object, args);
        const returned = performance.now();
        const done = () => {
          const end = performance.now();
          if (kind !== undefined) timeline.record(kind, start, until === 'return' ? returned : end);
          onSettled?.(property, args, end);
        };
        if (isThenable(result)) {
          return (result as Promise<unknown>).then(
            (resolved) => (done(), resolved),
            (error: unknown) => {
              done();
              throw error;
            },
          );
        }
        done();
        return result;
      };
    },
  });
}

/** Records gaps between ticks of a `intervalMs` timer that exceed `thresholdMs`. */
export class StallWatch {
  readonly gaps: Gap[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private lastCpu = 0;

  constructor(
    private readonly intervalMs = 10,
    private readonly thresholdMs = 20,
  ) {}

  start(): void {
    this.last = performance.now();
    this.lastCpu = loopThreadCpuMs();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    // The gap still open when stopping counts too.
    this.tick();
  }

  private tick(): void {
    const now = performance.now();
    const cpu = loopThreadCpuMs();
    const ms = now - this.last;
    if (ms > this.thresholdMs + this.intervalMs) this.gaps.push({ start: this.last, end: now, ms, cpuMs: cpu - this.lastCpu });
    this.last = now;
    this.lastCpu = cpu;
  }

  /** The gap in which this process used the most CPU (see {@link Gap.cpuMs}). */
  busiest(): Gap | undefined {
    return this.gaps.reduce<Gap | undefined>((best, gap) => (best === undefined || gap.cpuMs > best.cpuMs ? gap : best), undefined);
  }

  countCpuOver(ms: number): number {
    return this.gaps.filter((gap) => gap.cpuMs > ms).length;
  }

  longest(): Gap | undefined {
    return this.gaps.reduce<Gap | undefined>((best, gap) => (best === undefined || gap.ms > best.ms ? gap : best), undefined);
  }

  countOver(ms: number): number {
    return this.gaps.filter((gap) => gap.ms > ms).length;
  }
}
