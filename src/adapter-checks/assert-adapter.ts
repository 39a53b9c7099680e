import { RagdeskError } from '../errors.js';
import type { SpecificationVersion } from '../ports/specification.js';
import type { PortMethods } from './method-names.js';

/** The port contract version this ragdesk implements; see `SpecificationVersion`. */
const SPECIFICATION_VERSION: SpecificationVersion = 'v1';

/**
 * Checks that `adapter` was written for this version of the port and has its methods, so a wrong
 * adapter fails at `createRagdesk` with the port and the method named, not at the first call.
 * `port` is the option's name (`store`, `index`, ...).
 */
export function assertAdapter<T>(port: string, adapter: unknown, methods: PortMethods<T>): void {
  if (typeof adapter !== 'object' || adapter === null) {
    throw new RagdeskError('invalid_adapter', `${port} adapter is missing`, { details: { port } });
  }
  const record = adapter as Record<string, unknown>;
  assertVersion(port, record.specificationVersion);
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

function assertVersion(port: string, found: unknown): void {
  if (found === SPECIFICATION_VERSION) return;
  const expected = SPECIFICATION_VERSION;
  if (found === undefined) {
    throw new RagdeskError(
      'invalid_adapter',
      `${port} adapter declares no specificationVersion; this ragdesk expects '${expected}'. ` +
        `An adapter written before port versions existed must be checked against the ports, then set specificationVersion: '${expected}'`,
      { details: { port, found: null, expected } },
    );
  }
  // Only a string is echoed back as is: the value may be anything, and details must stay JSON.
  const shown = typeof found === 'string' ? found : `a ${typeof found}`;
  const quoted = typeof found === 'string' ? `'${found}'` : shown;
  throw new RagdeskError('invalid_adapter', `${port} adapter implements port specification ${quoted}; this ragdesk expects '${expected}'`, {
    details: { port, found: shown, expected },
  });
}
