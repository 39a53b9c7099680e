import { parseArgs } from 'node:util';
import { RagdeskError, type ApiKey, type ApiKeyScope } from '../../src/index.js';
import { UsageError, type CliIo } from './io.js';
import { withData } from './open-data.js';
import { DEFAULT_OWNER } from './resolve.js';

export const KEYS_USAGE = `ragdesk keys create [--owner ID] [--name NAME] [--scopes read,write,query|admin] [--datastore ID]... [--expires ISO-DATE-TIME] [--data-dir DIR]
ragdesk keys list   [--owner ID] [--data-dir DIR] [--json]
ragdesk keys revoke <key id or prefix> [--data-dir DIR]`;

export async function runKeys(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string', default: './data' },
      owner: { type: 'string' },
      name: { type: 'string', default: '' },
      scopes: { type: 'string' },
      datastore: { type: 'string', multiple: true },
      expires: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const dataDir = values['data-dir'] ?? './data';
  switch (action) {
    case 'create':
      return withData(dataDir, io, async (ragdesk) => {
        const scopes = values.scopes
          ?.split(',')
          .map((scope) => scope.trim())
          .filter(Boolean) as ApiKeyScope[] | undefined;
        const created = await ragdesk.keys.create({
          ownerId: values.owner ?? DEFAULT_OWNER,
          name: values.name ?? '',
          ...(scopes ? { scopes } : {}),
          ...(values.datastore?.length ? { datastoreIds: values.datastore } : {}),
          ...(values.expires ? { expiresAt: values.expires } : {}),
        });
        if (values.json) io.stdout(`${JSON.stringify({ key: created.key, ...created.apiKey })}\n`);
        else {
          io.stdout(`${created.key}\n`);
          io.stderr(
            `Created key ${created.apiKey.id} for owner "${created.apiKey.ownerId}" (${created.apiKey.scopes.join(', ')}). It is shown once: store it now.\n`,
          );
        }
        return 0;
      });
    case 'list':
      return withData(dataDir, io, async (ragdesk) => {
        const keys = await ragdesk.keys.list(values.owner === undefined ? {} : { ownerId: values.owner });
        if (values.json) io.stdout(`${JSON.stringify(keys)}\n`);
        else if (keys.length === 0) io.stdout('No API keys.\n');
        else for (const key of keys) io.stdout(`${describe(key)}\n`);
        return 0;
      });
    case 'revoke': {
      const target = positionals[0];
      if (!target) throw new UsageError('keys revoke needs a key id or prefix');
      return withData(dataDir, io, async (ragdesk) => {
        const keys = await ragdesk.keys.list(values.owner === undefined ? {} : { ownerId: values.owner });
        const matches = keys.filter(
          (key) => key.id === target || key.prefix === target || (target.length >= 8 && key.prefix.startsWith(target)),
        );
        if (matches.length === 0) throw new RagdeskError('not_found', `No API key with id or prefix ${JSON.stringify(target)}`);
        if (matches.length > 1) throw new RagdeskError('conflict', `Several keys match ${JSON.stringify(target)}: use the id`);
        const revoked = await ragdesk.keys.revoke(matches[0]!.id);
        io.stdout(`Revoked ${describe(revoked)}\n`);
        return 0;
      });
    }
    default:
      throw new UsageError(`Unknown keys action ${JSON.stringify(action ?? '')}`);
  }
}

function describe(key: ApiKey): string {
  const state = key.revokedAt ? `revoked ${key.revokedAt}` : key.lastUsedAt ? `last used ${key.lastUsedAt}` : 'never used';
  const limit = key.datastoreIds ? ` datastores=${key.datastoreIds.join(',')}` : '';
  const expiry = key.expiresAt ? `  expires ${key.expiresAt}` : '';
  return `${key.id}  ${key.prefix}…  owner=${key.ownerId}  scopes=${key.scopes.join(',')}${limit}  ${key.name ? `"${key.name}"  ` : ''}${state}${expiry}`;
}
