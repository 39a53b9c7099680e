#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isRagdeskError } from '../../src/errors.js';
import { runDemo } from './demo.js';

/** dist/adapters/cli/main.js → the package root, where README.md and docs/ live. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const USAGE = `ragdesk <command> [options]

Commands:
  demo [--data-dir DIR]   index this package's docs offline and answer a few questions
                          (default DIR: ./data/demo)
  help                    show this text
`;

async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...rest] = argv;
  switch (command) {
    case 'demo': {
      const { values } = parseArgs({
        args: rest,
        options: { 'data-dir': { type: 'string', default: './data/demo' }, query: { type: 'string', multiple: true } },
      });
      await runDemo({
        dataDir: values['data-dir'] ?? './data/demo',
        packageRoot: PACKAGE_ROOT,
        ...(values.query?.length ? { queries: values.query } : {}),
      });
      return 0;
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`Unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (isRagdeskError(error)) process.stderr.write(`ragdesk: ${error.code}: ${error.message}\n`);
    else process.stderr.write(`ragdesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
