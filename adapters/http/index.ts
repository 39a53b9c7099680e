/**
 * `ragdesk/http`: the HTTP API (docs/api.md) over any Node server.
 *
 *   const handler = createHttpHandler(ragdesk);
 *   http.createServer(handler)                       // node:http
 *   app.use(handler)                                 // Express (before any body parser)
 *   app.all('/api/*', (c) => handler.fetch(c.req.raw)) // Hono
 */
export { createHttpHandler, type RagdeskHttpHandler } from './handler.js';
export type { HttpHandlerOptions, ConfiguredApiKey, HttpLogger, RateLimiter, RateDecision } from './options.js';
export type { VisitorLimitOptions } from './visitor-limits.js';
export type { CorsOptions } from './cors.js';
export type { UiOptions } from './ui/serve-ui.js';
export type { NodeListener } from './node-bridge.js';
export type { FetchInfo } from './fetch-bridge.js';
export { tokenBucketLimiter, type TokenBucketOptions } from './rate-limit.js';
export { SSE_HEADERS } from './sse.js';
