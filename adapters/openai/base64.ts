import { RagdeskError } from '../../src/errors.js';

/**
 * Decodes OpenAI's base64 embedding (little-endian float32) straight into a Float32Array, without
 * the intermediate number[] the client's own decoding builds. The bytes are copied into a fresh
 * buffer because a Buffer from base64 may start at an offset that is not a multiple of 4.
 */
export function decodeBase64Vector(encoded: string, dimensions: number, what: string): Float32Array {
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length !== dimensions * 4) {
    throw new RagdeskError('upstream_failed', `${what}: an embedding has ${bytes.length / 4} dimensions, expected ${dimensions}`, {
      details: { reason: 'dimension_mismatch', expected: dimensions, received: bytes.length / 4 },
    });
  }
  const vector = new Float32Array(dimensions);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}

/** A float array as some compatible servers send despite `encoding_format: "base64"`. */
export function floatVector(values: readonly number[], dimensions: number, what: string): Float32Array {
  if (values.length !== dimensions) {
    throw new RagdeskError('upstream_failed', `${what}: an embedding has ${values.length} dimensions, expected ${dimensions}`, {
      details: { reason: 'dimension_mismatch', expected: dimensions, received: values.length },
    });
  }
  return Float32Array.from(values);
}
