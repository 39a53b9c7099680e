import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RagdeskError, type DatasourceRecord, type Ragdesk } from '../../src/index.js';
import { UsageError, type CliIo } from './io.js';
import { withData } from './open-data.js';
import { ProgressBar } from './progress.js';
import { DEFAULT_OWNER, findDatastore } from './resolve.js';

export const INGEST_USAGE = `ragdesk ingest <file|dir|url> --datastore <id|name> [--site] [--replace] [--custom-id ID] [--owner local] [--data-dir ./data]
  A folder is read recursively (supported types only). A URL is one page, or a whole site with --site.
  A missing datastore is created. Files already ingested under the same name are skipped unless --replace.`;

/** Extensions worth sending to the loaders when walking a folder; the bytes still decide. */
const EXTENSIONS = new Set(['md', 'markdown', 'mdx', 'txt', 'text', 'csv', 'tsv', 'json', 'html', 'htm', 'pdf', 'docx', 'pptx', 'xlsx']);

export async function runIngest(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      datastore: { type: 'string' },
      site: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
      'custom-id': { type: 'string' },
      owner: { type: 'string', default: DEFAULT_OWNER },
      'data-dir': { type: 'string', default: './data' },
    },
  });
  const target = positionals[0];
  if (!target || !values.datastore) throw new UsageError('ingest needs a file, folder or URL and --datastore');
  const ownerId = values.owner ?? DEFAULT_OWNER;
  return withData(values['data-dir'] ?? './data', io, async (ragdesk) => {
    let datastore = await findDatastore(ragdesk, values.datastore!, ownerId);
    if (!datastore) {
      datastore = await ragdesk.datastores.create({ name: values.datastore! }, { ownerId });
      io.stderr(`Created datastore "${datastore.name}" (${datastore.id})\n`);
    }
    const customId = values['custom-id'];
    const created: DatasourceRecord[] = [];
    let failed = 0;
    if (/^https?:\/\//i.test(target)) {
      created.push(
        await ragdesk.datasources.create({
          datastoreId: datastore.id,
          type: values.site ? 'web_site' : 'web_page',
          config: { source_url: target },
          ...(customId ? { custom_id: customId } : {}),
        }),
      );
    } else {
      const root = resolve(target);
      const files = statSync(root).isDirectory() ? walk(root) : [root];
      const base = statSync(root).isDirectory() ? root : resolve(root, '..');
      const existing = new Map((await ragdesk.datasources.list(datastore.id)).map((source) => [source.name, source]));
      for (const file of files) {
        const name = relative(base, file) || basename(file);
        const previous = existing.get(name);
        if (previous && !values.replace) {
          io.stderr(`skip ${name}: already ingested (--replace to ingest again)\n`);
          continue;
        }
        try {
          if (previous) await ragdesk.datasources.delete(previous.id);
          created.push(
            await ragdesk.datasources.create({
              datastoreId: datastore.id,
              type: 'file',
              name,
              ...(customId ? { custom_id: customId } : {}),
              file: { bytes: readFileSync(file), fileName: basename(file) },
            }),
          );
        } catch (error) {
          if (!RagdeskError.isInstance(error)) throw error;
          failed++;
          io.stderr(`skip ${name}: ${error.code}: ${error.message}\n`);
        }
      }
    }
    const settled = await waitWithProgress(ragdesk, created, io);
    const errors = settled.filter((source) => source.status !== 'synched');
    for (const source of errors) io.stderr(`${source.name}: ${source.status}${source.error ? `: ${source.error}` : ''}\n`);
    const chunks = settled.reduce((sum, source) => sum + source.nbChunks, 0);
    io.stdout(
      `Ingested ${settled.length - errors.length} of ${settled.length + failed} into "${datastore.name}" (${datastore.id}): ${chunks} chunks\n`,
    );
    return errors.length + failed > 0 ? 1 : 0;
  });
}

async function waitWithProgress(ragdesk: Ragdesk, sources: DatasourceRecord[], io: CliIo): Promise<DatasourceRecord[]> {
  if (sources.length === 0) return [];
  const bar = new ProgressBar(io, 'ingest', sources.length);
  const ids = new Set(sources.map((source) => source.id));
  let done = 0;
  let pages = '';
  const onProgress = (event: { datasourceId: string; pagesDone: number; pagesTotal: number | null; chunksDone: number }) => {
    if (!ids.has(event.datasourceId) || sources.length > 1) return;
    pages = `${event.pagesDone}${event.pagesTotal ? `/${event.pagesTotal}` : ''} pages, ${event.chunksDone} chunks`;
    bar.update(done, pages);
  };
  ragdesk.datasources.events.on('progress', onProgress);
  bar.update(0);
  try {
    const settled: DatasourceRecord[] = [];
    await Promise.all(
      sources.map(async (source) => {
        settled.push(await ragdesk.datasources.waitUntilSettled(source.id, 30 * 60_000));
        done++;
        bar.update(done, pages);
      }),
    );
    bar.finish(`synced ${done} datasource${done === 1 ? '' : 's'}`);
    return sources.map((source) => settled.find((candidate) => candidate.id === source.id)!);
  } finally {
    ragdesk.datasources.events.off('progress', onProgress);
  }
}

function walk(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...walk(path));
    else if (entry.isFile() && EXTENSIONS.has(entry.name.split('.').pop()?.toLowerCase() ?? '')) files.push(path);
  }
  return files;
}
