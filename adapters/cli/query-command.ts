import { parseArgs } from 'node:util';
import { RagdeskError, type RetrievalMode } from '../../src/index.js';
import { UsageError, type CliIo } from './io.js';
import { withData } from './open-data.js';
import { DEFAULT_OWNER, findAgent, requireDatastore } from './resolve.js';

export const QUERY_USAGE = `ragdesk query <text> --datastore <id|name> [--top-k 5] [--mode hybrid|vector|lexical] [--json] [--data-dir ./data]
ragdesk ask <question> (--agent <id|name> | --datastore <id|name>) [--conversation ID] [--data-dir ./data]
  ask streams the answer, then lists its sources. With --datastore it uses (and creates once) an agent reading it.`;

export async function runQuery(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      datastore: { type: 'string' },
      'top-k': { type: 'string', default: '5' },
      mode: { type: 'string', default: 'hybrid' },
      json: { type: 'boolean', default: false },
      owner: { type: 'string' },
      'data-dir': { type: 'string', default: './data' },
    },
  });
  const text = positionals.join(' ').trim();
  if (!text || !values.datastore) throw new UsageError('query needs text and --datastore');
  return withData(values['data-dir'] ?? './data', io, async (ragdesk) => {
    const datastore = await requireDatastore(ragdesk, values.datastore!, values.owner);
    const fragments = await datastore.query({ query: text, topK: Number(values['top-k']), mode: values.mode as RetrievalMode });
    if (values.json) {
      io.stdout(`${JSON.stringify(fragments)}\n`);
      return 0;
    }
    if (fragments.length === 0) io.stdout('(nothing found)\n');
    fragments.forEach((fragment, index) => {
      const excerpt = fragment.text.replace(/\s+/g, ' ').trim();
      io.stdout(
        `${index + 1}. [${fragment.source}] score ${fragment.score.toFixed(4)}\n   ${excerpt.length > 300 ? `${excerpt.slice(0, 297)}...` : excerpt}\n`,
      );
    });
    return 0;
  });
}

export async function runAsk(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      agent: { type: 'string' },
      datastore: { type: 'string' },
      conversation: { type: 'string' },
      owner: { type: 'string', default: DEFAULT_OWNER },
      'data-dir': { type: 'string', default: './data' },
    },
  });
  const question = positionals.join(' ').trim();
  if (!question || (!values.agent && !values.datastore)) throw new UsageError('ask needs a question and --agent or --datastore');
  const ownerId = values.owner ?? DEFAULT_OWNER;
  return withData(values['data-dir'] ?? './data', io, async (ragdesk) => {
    let agentId: string;
    if (values.agent) {
      const agent = await findAgent(ragdesk, values.agent);
      if (!agent) throw new RagdeskError('not_found', `No agent with id or name ${JSON.stringify(values.agent)}`);
      agentId = agent.id;
    } else {
      const datastore = await requireDatastore(ragdesk, values.datastore!);
      const name = `ask: ${datastore.name}`;
      const owner = datastore.ownerId ?? ownerId;
      const existing = (await ragdesk.agents.list({ ownerId: owner })).find(
        (agent) => agent.name === name && agent.datastoreIds.includes(datastore.id),
      );
      agentId =
        existing?.id ??
        (
          await ragdesk.agents.create(
            { name, description: `Answers from ${datastore.name}`, datastoreIds: [datastore.id] },
            { ownerId: datastore.ownerId },
          )
        ).id;
    }
    const stream = await ragdesk.agents.openStream(agentId, {
      query: question,
      ...(values.conversation ? { conversationId: values.conversation } : {}),
    });
    for await (const event of stream) {
      if (event.type === 'answer') io.stdout(event.delta);
      else {
        const { response } = event;
        io.stdout('\n\nSources:\n');
        if (response.sources.length === 0) io.stdout('  (none)\n');
        response.sources.forEach((source, index) => {
          const where = source.source_url ?? source.datasource_name;
          io.stdout(
            `  [${index + 1}] ${where}${source.page_number ? ` p.${source.page_number}` : ''} (score ${source.score.toFixed(3)})\n`,
          );
        });
        io.stderr(`conversation ${response.conversationId} · ${response.model} · ${response.usage.totalTokens} tokens\n`);
      }
    }
    return 0;
  });
}
