/**
 * The server bench:hostile uploads to: what `ragdesk serve` runs (openRagdesk on a data folder,
 * the HTTP handler on node:http, default loaders and limits), with two differences the benchmark
 * needs: the web loader may fetch 127.0.0.1 (the crawl case is served there), and limits can be
 * scaled down (the CI test runs every case at a fraction of its size, so the limits must shrink
 * with it). Prints one JSON line `{ "origin": ... }` once listening; stops on SIGTERM.
 *
 *   node dist/benchmarks/lib/hostile-server.js <data-dir> <api-key> [usage-json] [files-json]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler } from '../../adapters/http/index.js';
import { fileLoading, type FileLoadingOptions } from '../../adapters/loaders/index.js';
import { openRagdesk } from '../../adapters/node.js';
import { webLoader } from '../../adapters/web/index.js';
import type { UsageLimits } from '../../src/index.js';

const [dataDir, apiKey, usageJson, filesJson] = process.argv.slice(2);
if (!dataDir || !apiKey) throw new Error('usage: hostile-server <data-dir> <api-key> [usage-json] [files-json]');
const usage = JSON.parse(usageJson ?? '{}') as UsageLimits;
const files = JSON.parse(filesJson ?? '{}') as FileLoadingOptions;

const ragdesk = openRagdesk({
  dataDir,
  env: {},
  usage,
  files: fileLoading(files),
  web: webLoader({ allowPrivateNetwork: true }),
});
const handler = createHttpHandler(ragdesk, { apiKeys: [{ key: apiKey, ownerId: 'bench', scopes: ['admin'] }] });
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void ragdesk.close().then(() => process.exit(0));
});
