import { MessageChannel } from 'node:worker_threads';

/**
 * Frees a large buffer's memory now instead of at some later major garbage collection. A buffer of
 * its own (`Buffer.allocUnsafeSlow`, not a slice of Node's shared pool) is moved into a message on a
 * channel that is then closed: the message is dropped with its memory, and the buffer is left
 * empty (length 0). Measured on Node 20: a 168 MiB image went from anonymous RSS to freed at once,
 * where leaving it to the collector kept it past a thousand queries. A slice of a larger memory is
 * left alone (moving the memory would empty its neighbours).
 */
export function releaseBuffer(buffer: Uint8Array): void {
  const memory = buffer.buffer;
  if (!(memory instanceof ArrayBuffer) || buffer.byteOffset !== 0 || buffer.byteLength !== memory.byteLength) return;
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, [memory]);
  port1.close();
  port2.close();
}
