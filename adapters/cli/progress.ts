import type { CliIo } from './io.js';

/**
 * A one-line progress bar on stderr. On a terminal it redraws in place; otherwise (logs, CI) it
 * prints a line only when the whole percentage changes by 10 or more, so logs stay short.
 */
export class ProgressBar {
  private lastPrinted = -1;
  private drawn = false;

  constructor(
    private readonly io: CliIo,
    private readonly label: string,
    private total: number,
  ) {}

  setTotal(total: number): void {
    this.total = total;
  }

  update(done: number, note = ''): void {
    const total = Math.max(1, this.total);
    const ratio = Math.min(1, done / total);
    const percent = Math.floor(ratio * 100);
    if (this.io.interactive) {
      const width = 28;
      const filled = Math.round(ratio * width);
      this.io.stderr(
        `\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total} ${note}`.slice(0, 120).padEnd(80),
      );
      this.drawn = true;
    } else if (this.lastPrinted < 0 || percent >= this.lastPrinted + 10 || (done >= total && this.lastPrinted < 100)) {
      this.lastPrinted = percent;
      this.io.stderr(`${this.label}: ${done}/${this.total} (${percent}%) ${note}\n`);
    }
  }

  finish(summary: string): void {
    if (this.drawn) this.io.stderr('\n');
    this.io.stderr(`${summary}\n`);
  }
}
