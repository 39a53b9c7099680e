import { publicDatasourceId } from '../datastores/document-ids.js';
import type { DocumentFragment } from '../datastores/fragment.js';
import type { SourceEntry } from '../ports/agent-key-usage-records.js';
import type { DatasourceRef } from '../ports/records.js';

/**
 * The API's "Source entry" list: one entry per datasource, best first, each describing the best chunk of
 * that datasource the model was given. `fragments` must be best first already.
 */
export function buildSources(fragments: readonly DocumentFragment[], datasources: ReadonlyMap<string, DatasourceRef>): SourceEntry[] {
  const seen = new Set<string>();
  const sources: SourceEntry[] = [];
  for (const fragment of fragments) {
    if (seen.has(fragment.datasource_id)) continue;
    seen.add(fragment.datasource_id);
    const datasource = datasources.get(fragment.datasource_id);
    const config = datasource?.config ?? {};
    sources.push({
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
    });
  }
  return sources;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value ? value : null;
}
