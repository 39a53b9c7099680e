/**
 * Runs tasks one after another. The background flush writes the graph from a native worker thread;
 * a mutation (or a resize, which reallocates) during that write would corrupt the file or crash, so
 * every mutation and flush of a collection goes through its queue. Queries are synchronous reads
 * and need no slot.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    // A failed task must not block the ones queued after it.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
