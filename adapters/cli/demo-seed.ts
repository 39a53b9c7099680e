import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Ragdesk } from '../../src/index.js';
import { DEMO_DATASTORE, projectDocs } from './demo.js';

const DEMO_AGENT = 'ragdesk-guide';

export interface DemoSeed {
  datastoreId: string;
  agentId: string;
  documents: number;
  /** False when an earlier run had seeded it already (nothing was written now). */
  created: boolean;
}

/**
 * First run of `ragdesk serve --demo`: a datastore of this package's own Markdown docs and a public
 * agent reading it, owned by the serving owner, so a newcomer can query right away. Later runs find
 * them and write nothing.
 */
export async function seedDemo(ragdesk: Ragdesk, ownerId: string, packageRoot: string): Promise<DemoSeed> {
  const existing = (await ragdesk.datastores.list({ ownerId })).find((datastore) => datastore.name === DEMO_DATASTORE);
  if (existing) {
    const agent = (await ragdesk.agents.list({ ownerId })).find((candidate) => candidate.name === DEMO_AGENT);
    const documents = (await ragdesk.datasources.list(existing.id)).length;
    const agentId = agent?.id ?? (await createAgent(ragdesk, ownerId, existing.id));
    return { datastoreId: existing.id, agentId, documents, created: false };
  }
  const datastore = await ragdesk.datastores.create(
    { name: DEMO_DATASTORE, description: "The ragdesk project's own documentation" },
    { ownerId },
  );
  const documents = projectDocs(packageRoot)
    .map((file) => ({ name: relative(packageRoot, file), text: readFileSync(file, 'utf8') }))
    .filter((document) => document.text.trim() !== '')
    .map((document) => ({ ...document, metadata: { source: document.name } }));
  if (documents.length > 0) await datastore.upsert(documents);
  const agentId = await createAgent(ragdesk, ownerId, datastore.id);
  return { datastoreId: datastore.id, agentId, documents: documents.length, created: true };
}

async function createAgent(ragdesk: Ragdesk, ownerId: string, datastoreId: string): Promise<string> {
  const agent = await ragdesk.agents.create(
    {
      name: DEMO_AGENT,
      description: 'Answers questions about ragdesk from its own documentation',
      visibility: 'public',
      datastoreIds: [datastoreId],
    },
    { ownerId },
  );
  return agent.id;
}
