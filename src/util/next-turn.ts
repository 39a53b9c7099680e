/**
 * Resolves on a later turn of the event loop (after pending I/O and timers). Awaiting a settled
 * promise only queues a microtask, so synchronous steps joined by `await`s (SQLite calls, chunking,
 * an index slice) would otherwise run as one long turn: the ingest benchmark once measured 70 ms
 * stalls made of such chains. Between the steps, timers and I/O (queries, heartbeats) get their turn.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
