/** Caps requests in flight per host so a crawl never hammers one server. */
export interface HostLimiter {
  /** Runs `task` once fewer than the limit of tasks for `host` are running. */
  run<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

export function hostLimiter(limit: number): HostLimiter {
  const active = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();

  function release(host: string): void {
    const next = waiting.get(host)?.shift();
    if (next) {
      next(); // the slot passes straight to the next waiter
      return;
    }
    waiting.delete(host);
    const count = (active.get(host) ?? 1) - 1;
    if (count <= 0) active.delete(host);
    else active.set(host, count);
  }

  function acquire(host: string, signal?: AbortSignal): Promise<void> {
    const count = active.get(host) ?? 0;
    if (count < limit) {
      active.set(host, count + 1);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = waiting.get(host) ?? [];
      waiting.set(host, queue);
      const onAbort = (): void => {
        const index = queue.indexOf(grant);
        if (index >= 0) queue.splice(index, 1);
        reject(signal?.reason);
      };
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      queue.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    async run(host, task, signal) {
      signal?.throwIfAborted();
      await acquire(host, signal);
      try {
        return await task();
      } finally {
        release(host);
      }
    },
  };
}
