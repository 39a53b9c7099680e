import { RagdeskError } from '../../src/errors.js';

export function memoryClosedError(): RagdeskError {
  return new RagdeskError('closed', 'the memory store is closed');
}
