/**
 * The server bench:hostile uploads to: what `ragdesk serve` runs (openRagdesk on a data folder,
 * the HTTP handler on node:http, default loaders and limits), with two differences the benchmark
 * needs: the web loader may fetch 127.0.0.1 (the crawl and attacker hosts are served there), and limits can be
 * scaled down (the CI test runs every case at a fraction of its size, so the limits must shrink
 * with it). Prints one JSON line `{ "origin": ... }` once listening, then every 250 ms a line
 * `{ "stallMs", "stallCpuMs" }`: the longest gap of a 10 ms ticker since the last line and the CPU
 * this process used in it. On a machine shared with other work, a query can wait because the
 * server was off the CPU; only the CPU part of a stall is the server's own doing. Stops on SIGTERM.
 *
 *   node dist/benchmarks/lib/hostile-server.js <data-dir> <api-key> [usage-json] [files-json]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler } from '../../adapters/http/index.js';
import { fileLoading, type FileLoadingOptions } from '../../adapters/loaders/index.js';
import { openRagdesk } from '../../adapters/node.js';
import { isPrivateAddress, webLoader } from '../../adapters/web/index.js';
import type { UsageLimits } from '../../src/index.js';
import { cl100kTokenizer } from '../../src/ingest/tokenizer.js';
import { reportStalls } from './stall-reports.js';

const [dataDir, apiKey, usageJson, filesJson] = process.argv.slice(2);
if (!dataDir || !apiKey) throw new Error('usage: hostile-server <data-dir> <api-key> [usage-json] [files-json]');
const usage = JSON.parse(usageJson ?? '{}') as UsageLimits;
const files = JSON.parse(filesJson ?? '{}') as FileLoadingOptions;

const ragdesk = openRagdesk({
  dataDir,
  env: {},
  usage,
  files: fileLoading(files),
  // The address hook lets the cases' hosts on 127.0.0.1 through, and nothing else private.
  web: webLoader({ isAllowedAddress: (address) => address === '127.0.0.1' || !isPrivateAddress(address) }),
});
const handler = createHttpHandler(ragdesk, { apiKeys: [{ key: apiKey, ownerId: 'bench', scopes: ['admin'] }] });
// As `ragdesk serve` does: the tokenizer loads before the server listens.
cl100kTokenizer().count('ragdesk');
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
});
reportStalls();
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void ragdesk.close().then(() => process.exit(0));
  // A close still waiting for a long sync must not end in the harness's SIGKILL: an exit writes
  // what --cpu-prof recorded.
  setTimeout(() => process.exit(0), 5_000).unref();
});
