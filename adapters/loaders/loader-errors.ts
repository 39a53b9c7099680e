import { RagdeskError } from '../../src/errors.js';

/** A file of a supported type whose content cannot be read (corrupt, truncated, encrypted). */
export function couldNotParse(what: string, mimeType: string, cause: unknown): RagdeskError {
  if (RagdeskError.isInstance(cause)) return cause;
  const reason = cause instanceof Error ? cause.message.replace(/^\[OfficeParser\]:\s*/, '') : String(cause);
  return new RagdeskError('invalid_request', `could not parse ${what}: ${reason}`, {
    cause,
    details: { mimeType, reason: 'unparseable_file' },
  });
}

export function unsupportedMediaType(mimeType: string, fileName?: string): RagdeskError {
  const subject = fileName === undefined ? 'the file' : JSON.stringify(fileName);
  return new RagdeskError('unsupported_media_type', `${subject} has unsupported type ${mimeType}`, {
    details: { mimeType, ...(fileName === undefined ? {} : { fileName }) },
  });
}

export function payloadTooLarge(message: string, details: Record<string, unknown>): RagdeskError {
  return new RagdeskError('payload_too_large', message, { details });
}
