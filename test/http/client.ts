import type { OpenApiValidator } from './openapi-validator.js';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  /** API key sent as `Authorization: Bearer <key>`; `null` sends none. */
  key?: string | null;
  /** JSON body (sets Content-Type). */
  json?: unknown;
  /** Raw body (FormData, string, bytes). */
  body?: RequestInit['body'];
  headers?: Record<string, string>;
}

/** A fetch client for the API that checks every response it sees against the OpenAPI document. */
export class ApiClient {
  constructor(
    readonly origin: string,
    readonly validator: OpenApiValidator,
    readonly defaultKey: string | null = null,
  ) {}

  async call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const key = options.key === undefined ? this.defaultKey : options.key;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${this.origin}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    let parsed: unknown = text;
    if (contentType?.startsWith('application/json')) parsed = JSON.parse(text) as unknown;
    this.validator.validate(method, new URL(path, this.origin).pathname, response.status, contentType, parsed);
    if (response.status >= 400) {
      const error = (parsed as { error?: { code?: unknown } }).error;
      if (typeof error?.code !== 'string')
        throw new Error(`${method} ${path} ${response.status} without an error code: ${text.slice(0, 200)}`);
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string, options?: CallOptions) {
    return this.call<T>('GET', path, options);
  }
  post<T = unknown>(path: string, json?: unknown, options: CallOptions = {}) {
    return this.call<T>('POST', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  patch<T = unknown>(path: string, json?: unknown, options: CallOptions = {}) {
    return this.call<T>('PATCH', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  delete<T = unknown>(path: string, options: CallOptions = {}) {
    return this.call<T>('DELETE', path, options);
  }
}
