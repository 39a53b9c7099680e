import { publicDatasourceId } from '../datastores/document-ids.js';
import type { DocumentFragment } from '../datastores/fragment.js';
import type { SourceEntry, SourcePassage } from '../ports/agent-key-usage-records.js';
import type { DatasourceRef } from '../ports/records.js';

/**
 * The API's "Source entry" list: one entry per datasource, best first (in the order of each
 * datasource's best fragment), each carrying the fields of its best fragment and every fragment of
 * the datasource the model was given in `passages`, best first. `fragments` must be best first
 * already, with the text the model saw.
 */
export function buildSources(fragments: readonly DocumentFragment[], datasources: ReadonlyMap<string, DatasourceRef>): SourceEntry[] {
  const byDatasource = new Map<string, SourceEntry>();
  for (const fragment of fragments) {
    const passage: SourcePassage = {
      chunk_id: fragment.chunk_id,
      page_number: fragment.page_number,
      text: fragment.text,
      score: fragment.score,
    };
    const entry = byDatasource.get(fragment.datasource_id);
    if (entry) {
      entry.passages.push(passage);
      continue;
    }
    const datasource = datasources.get(fragment.datasource_id);
    const config = datasource?.config ?? {};
    byDatasource.set(fragment.datasource_id, {
      chunk_id: fragment.chunk_id,
      datasource_id: publicDatasourceId(fragment.datasource_id),
      datasource_name: fragment.datasource_name,
      datasource_type: datasource?.type ?? 'text',
      source_url: stringOrNull(config.source_url) ?? (/^https?:\/\//.test(fragment.source) ? fragment.source : null),
      custom_id: fragment.custom_id,
      mime_type: stringOrNull(config.mime_type),
      page_number: fragment.page_number,
      total_pages: typeof config.total_pages === 'number' ? config.total_pages : null,
      score: fragment.score,
      text: fragment.text,
      passages: [passage],
    });
  }
  return [...byDatasource.values()];
}

/**
 * The number each fragment is cited by: its datasource's position in the source list (1-based),
 * so every `[n]` in an answer names `sources[n - 1]`, the entry that lists the passage.
 */
export function citationNumbers(fragments: readonly Pick<DocumentFragment, 'datasource_id'>[]): number[] {
  const positions = new Map<string, number>();
  return fragments.map((fragment) => {
    let position = positions.get(fragment.datasource_id);
    if (position === undefined) {
      position = positions.size + 1;
      positions.set(fragment.datasource_id, position);
    }
    return position;
  });
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value ? value : null;
}
