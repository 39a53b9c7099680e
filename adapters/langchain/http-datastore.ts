import { RagdeskError, type DatastoreQueryInput, type DocumentFragment, type RagdeskErrorCode } from '../../src/index.js';

/** A datastore served by ragdesk's HTTP API. */
export interface HttpDatastoreOptions {
  /** The API's base URL with its base path, e.g. `http://127.0.0.1:3000/api`. */
  url: string;
  datastoreId: string;
  /** An API key with the `query` scope. */
  apiKey: string;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** `POST {url}/datastores/{id}/query`; an error answer is thrown as the RagdeskError it describes. */
export async function queryOverHttp(options: HttpDatastoreOptions, input: DatastoreQueryInput): Promise<DocumentFragment[]> {
  const call = options.fetch ?? fetch;
  const url = `${options.url.replace(/\/+$/, '')}/datastores/${encodeURIComponent(options.datastoreId)}/query`;
  const response = await call(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  }).catch((error: unknown) => {
    throw new RagdeskError('upstream_failed', `ragdesk at ${options.url} did not answer: ${String(error)}`, {
      cause: error,
      retryable: true,
    });
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null)?.error;
    throw new RagdeskError(
      (error?.code as RagdeskErrorCode | undefined) ?? 'upstream_failed',
      error?.message ?? `ragdesk answered ${response.status}`,
      {
        status: response.status,
        details: error?.details ?? {},
      },
    );
  }
  if (!Array.isArray(body)) throw new RagdeskError('upstream_failed', `ragdesk at ${options.url} answered something other than fragments`);
  return body as DocumentFragment[];
}
