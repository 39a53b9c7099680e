import OpenAI from 'openai';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServeArgs, startService } from '../../adapters/cli/serve-command.js';
import { tempDir } from '../helpers/setups.js';
import { recordingIo } from './io.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('ragdesk serve --openai-compat', () => {
  it('serves /v1 for OpenAI clients, and only with the flag', async () => {
    const temp = tempDir('ragdesk-serve-openai-');
    try {
      const io = recordingIo();
      const service = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--no-ui', '--openai-compat'], ROOT), io);
      try {
        expect(io.text()).toContain(`OpenAI-compatible chat: ${service.origin}/v1`);
        const key = service.createdKey!;
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
        const post = (path: string, body: unknown) =>
          fetch(`${service.origin}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
        const datastore = (await (await post('/api/datastores', { name: 'Notes' })).json()) as { id: string };
        await post(`/api/datastores/upsert/${datastore.id}`, {
          documents: [{ name: 'kettle.md', text: 'The kettle is in the left cupboard.' }],
        });
        await post('/api/agents', {
          name: 'Notes',
          description: 'd',
          handle: 'notes',
          tools: [{ type: 'datastore', datastoreId: datastore.id }],
        });

        const client = new OpenAI({ apiKey: key, baseURL: `${service.origin}/v1`, maxRetries: 0 });
        expect((await client.models.list()).data.map((model) => model.id)).toEqual(['@notes']);
        const completion = await client.chat.completions.create({
          model: '@notes',
          messages: [{ role: 'user', content: 'Where is the kettle?' }],
        });
        expect(completion.choices[0]!.message.content).toContain('left cupboard');
      } finally {
        await service.close();
      }
      const plain = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--no-ui'], ROOT), recordingIo());
      try {
        expect((await fetch(`${plain.origin}/v1/models`)).status).toBe(404);
      } finally {
        await plain.close();
      }
    } finally {
      temp.remove();
    }
  });
});
