import { RagdeskError } from '../errors.js';
import type { PortMethods } from './method-names.js';

/**
 * Checks that `adapter` has the methods of its port, so a wrong adapter fails at `createRagdesk`
 * with the port and the method named, not at the first call. `port` is the option's name
 * (`store`, `index`, ...).
 */
export function assertAdapter<T>(port: string, adapter: unknown, methods: PortMethods<T>): void {
  if (typeof adapter !== 'object' || adapter === null) {
    throw new RagdeskError('invalid_adapter', `${port} adapter is missing`, { details: { port } });
  }
  const record = adapter as Record<string, unknown>;
  const missing = Object.keys(methods.required).filter((method) => typeof record[method] !== 'function');
  if (missing.length > 0) {
    throw new RagdeskError('invalid_adapter', `${port} adapter lacks ${missing.join(', ')}`, { details: { port, missing } });
  }
  // An optional method is called when present: a present non-function would fail at that call.
  const malformed = Object.keys(methods.optional).filter((method) => record[method] !== undefined && typeof record[method] !== 'function');
  if (malformed.length > 0) {
    throw new RagdeskError('invalid_adapter', `${port} adapter has ${malformed.join(', ')} that is not a function`, {
      details: { port, malformed },
    });
  }
}
