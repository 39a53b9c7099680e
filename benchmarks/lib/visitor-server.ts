/**
 * The server bench:hostile-visitors attacks: `ragdesk serve` itself (startService, its default
 * limits and flags), with one difference: the web loader lets the attacker's host name through to
 * loopback (its address hook), as a public storage host would be reached; every other private
 * address keeps the default refusal. Prints one JSON line `{ "origin", "neighbourKey" }` once
 * listening, then every 250 ms `{ "stallMs", "stallCpuMs" }` like hostile-server.ts. Stops on SIGTERM.
 *
 *   node dist/benchmarks/lib/visitor-server.js <data-dir> <owner-key> <attacker-host> [serve flags as JSON array]
 */
import { parseServeArgs, startService } from '../../adapters/cli/serve-command.js';
import type { CliIo } from '../../adapters/cli/io.js';
import { isPrivateAddress, webLoader } from '../../adapters/web/index.js';
import { PACKAGE_ROOT } from './report.js';
import { reportStalls } from './stall-reports.js';

const [dataDir, ownerKey, attackerHost, flagsJson] = process.argv.slice(2);
if (!dataDir || !ownerKey || !attackerHost) throw new Error('usage: visitor-server <data-dir> <owner-key> <attacker-host> [flags-json]');
const flags = JSON.parse(flagsJson ?? '[]') as string[];

const io: CliIo = {
  stdout: () => undefined,
  stderr: (text) => process.stderr.write(text),
  env: { RAGDESK_API_KEY: ownerKey },
  interactive: false,
};
const options = parseServeArgs(['--port', '0', '--data-dir', dataDir, '--no-ui', '--no-preload', ...flags], PACKAGE_ROOT);
const service = await startService(options, io, {
  web: webLoader({
    lookup: (hostname) =>
      hostname === attackerHost ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : Promise.reject(new Error(`no ${hostname}`)),
    isAllowedAddress: (address, hostname) => hostname === attackerHost || !isPrivateAddress(address),
  }),
});
// Another tenant of the same server: its queries are the probe.
const neighbourKey = (await service.ragdesk.keys.create({ ownerId: 'neighbour', scopes: ['admin'] })).key;
process.stdout.write(`${JSON.stringify({ origin: service.origin, neighbourKey, pid: process.pid })}\n`);

reportStalls();
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
  setTimeout(() => process.exit(0), 5_000).unref();
});
