import { readFileSync } from 'node:fs';

/**
 * CPU time, in milliseconds, of the thread that runs the event loop (the caller's thread).
 *
 * `process.cpuUsage()` sums every thread of the process: V8's parallel GC and compiler threads,
 * libuv's pool and any worker thread. On a busy machine the loop thread can be preempted in the
 * middle of a callback while those threads run, and a stall counted as min(busy time, process CPU
 * time) then charges the OS's scheduling to our code. Linux reports the calling thread's own run
 * time in nanoseconds in /proc/thread-self/schedstat (first field); elsewhere this falls back to
 * the process total, which can only overstate a stall.
 */
export function loopThreadCpuMs(): number {
  if (schedstatReadable) {
    try {
      const text = readFileSync('/proc/thread-self/schedstat', 'latin1');
      return Number(text.slice(0, text.indexOf(' '))) / 1e6;
    } catch {
      schedstatReadable = false;
    }
  }
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

let schedstatReadable = process.platform === 'linux';
