import { loopThreadCpuMs } from './thread-cpu.js';

/**
 * For a server process a benchmark starts: every 250 ms, one line of JSON on stdout with the longest
 * gap between two 10 ms ticks of the event loop since the last line, and the loop thread's CPU time
 * within it (the rest is time the OS kept the thread off the CPU).
 */
export function reportStalls(): void {
  let last = performance.now();
  let lastCpu = loopThreadCpuMs();
  let worst = { stallMs: 0, stallCpuMs: 0 };
  setInterval(() => {
    const now = performance.now();
    const cpu = loopThreadCpuMs();
    const gap = now - last;
    if (gap > worst.stallMs) worst = { stallMs: Math.round(gap), stallCpuMs: Math.round(cpu - lastCpu) };
    last = now;
    lastCpu = cpu;
  }, 10).unref();
  setInterval(() => {
    process.stdout.write(`${JSON.stringify(worst)}\n`);
    worst = { stallMs: 0, stallCpuMs: 0 };
  }, 250).unref();
}
