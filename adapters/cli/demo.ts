import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { openRagdesk } from '../node.js';
import type { Datastore } from '../../src/index.js';

export const DEMO_DATASTORE = 'ragdesk-docs';
const DEMO_QUERIES = [
  'How do I run the tests?',
  'What happens when the vector index file is corrupt?',
  'How does hybrid retrieval combine results?',
];

export interface DemoOptions {
  dataDir: string;
  packageRoot: string;
  queries?: string[];
  write?: (line: string) => void;
}

/**
 * Builds (or refreshes) a datastore from the project's own Markdown docs and prints the top
 * fragments for a few questions: the whole embedded pipeline, offline, in one command.
 */
export async function runDemo(options: DemoOptions): Promise<void> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const ragdesk = openRagdesk({ dataDir: options.dataDir });
  try {
    for (const note of ragdesk.notes) write(note);
    const datastore = await findOrCreate(ragdesk.datastores, DEMO_DATASTORE);
    const files = projectDocs(options.packageRoot);
    const existing = new Map((await ragdesk.datasources.list(datastore.id)).map((ds) => [ds.name, ds]));
    const started = performance.now();
    for (const file of files) {
      const name = relative(options.packageRoot, file);
      const text = readFileSync(file, 'utf8');
      if (!text.trim()) continue;
      const known = existing.get(name);
      if (known) await datastore.update({ id: known.id, text, name });
      else await datastore.upsert([{ text, name, metadata: { source: name } }]);
    }
    const sources = await ragdesk.datasources.list(datastore.id);
    const chunks = sources.reduce((sum, ds) => sum + ds.nbChunks, 0);
    write(
      `Datastore "${DEMO_DATASTORE}" in ${options.dataDir}: ${sources.length} documents, ${chunks} chunks ` +
        `(synced in ${Math.round(performance.now() - started)} ms)`,
    );
    for (const query of options.queries ?? DEMO_QUERIES) {
      write('');
      write(`? ${query}`);
      const fragments = await datastore.query({ query, topK: 3 });
      if (fragments.length === 0) write('  (nothing relevant found)');
      fragments.forEach((fragment, i) => {
        const excerpt = fragment.text.replace(/\s+/g, ' ').slice(0, 220);
        write(`  ${i + 1}. [${fragment.source}] score ${fragment.score.toFixed(4)}`);
        write(`     ${excerpt}${fragment.text.length > 220 ? '...' : ''}`);
      });
    }
  } finally {
    await ragdesk.close();
  }
}

async function findOrCreate(
  datastores: { list(): Promise<Datastore[]>; create(input: { name: string; description?: string }): Promise<Datastore> },
  name: string,
): Promise<Datastore> {
  const found = (await datastores.list()).find((datastore) => datastore.name === name);
  return found ?? datastores.create({ name, description: "The ragdesk project's own documentation" });
}

export function projectDocs(root: string): string[] {
  const files = [join(root, 'README.md')];
  for (const folder of [join(root, 'docs'), join(root, 'benchmarks')]) {
    if (!existsSync(folder)) continue;
    for (const entry of readdirSync(folder).sort()) if (entry.endsWith('.md')) files.push(join(folder, entry));
  }
  return files.filter((file) => existsSync(file));
}
