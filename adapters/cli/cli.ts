import { parseArgs } from 'node:util';
import { RagdeskError } from '../../src/index.js';
import { BACKUP_USAGE, runBackup, runRestore } from './backup-command.js';
import { runDemo } from './demo.js';
import { EVAL_USAGE, runEval } from './eval-command.js';
import { INGEST_USAGE, runIngest } from './ingest-command.js';
import { UsageError, type CliIo } from './io.js';
import { KEYS_USAGE, runKeys } from './keys-command.js';
import { MIGRATE_USAGE, runMigrateCommand } from './migrate-command.js';
import { QUERY_USAGE, runAsk, runQuery } from './query-command.js';
import { SERVE_USAGE, runServe } from './serve-command.js';

const USAGE = `ragdesk <command> [options]

Commands:
${indent(SERVE_USAGE)}
${indent(KEYS_USAGE)}
${indent(INGEST_USAGE)}
${indent(QUERY_USAGE)}
${indent(EVAL_USAGE)}
${indent(MIGRATE_USAGE)}
${indent(BACKUP_USAGE)}
  ragdesk demo [--data-dir ./data/demo]
      index this package's docs offline and print the best fragments for a few questions
  ragdesk help

Every command that reads data takes --data-dir (default ./data). With OPENAI_API_KEY set (and
optionally OPENAI_BASE_URL) answers and embeddings use OpenAI or a compatible server; without it,
everything runs offline.
`;

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** Runs one CLI command; returns the exit code. Errors are printed, never thrown. */
export async function runCli(argv: string[], io: CliIo, packageRoot: string): Promise<number> {
  const [command = 'help', ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await runServe(rest, io, packageRoot);
      case 'keys':
        return await runKeys(rest, io);
      case 'ingest':
        return await runIngest(rest, io);
      case 'query':
        return await runQuery(rest, io);
      case 'ask':
        return await runAsk(rest, io);
      case 'eval':
        return await runEval(rest, io);
      case 'migrate':
        return await runMigrateCommand(rest, io);
      case 'backup':
        return await runBackup(rest, io);
      case 'restore':
        return await runRestore(rest, io);
      case 'demo': {
        const { values } = parseArgs({
          args: rest,
          options: { 'data-dir': { type: 'string', default: './data/demo' }, query: { type: 'string', multiple: true } },
        });
        await runDemo({
          dataDir: values['data-dir'] ?? './data/demo',
          packageRoot,
          write: (line) => io.stdout(`${line}\n`),
          ...(values.query?.length ? { queries: values.query } : {}),
        });
        return 0;
      }
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return 0;
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      io.stderr(`ragdesk: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (RagdeskError.isInstance(error)) io.stderr(`ragdesk: ${error.code}: ${error.message}\n`);
    else io.stderr(`ragdesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}
