#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runCli } from './cli.js';
import { processIo } from './io.js';

/** dist/adapters/cli/main.js → the package root, where README.md and docs/ live. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

runCli(process.argv.slice(2), processIo, PACKAGE_ROOT).then(
  (code) => {
    process.exitCode = code;
    // `serve` has closed its server and store; nothing else should keep the process alive, but a
    // stray timer in a dependency must not keep a finished command hanging.
    setTimeout(() => process.exit(code), 2_000).unref();
  },
  (error: unknown) => {
    // runCli answers every failure it knows with an exit code; anything else is a bug worth its stack.
    process.stderr.write(`ragdesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
