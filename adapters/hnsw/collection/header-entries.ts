import { PackedStrings } from '../../kit/packed-strings.js';
import type { HeaderContent, IndexHeader } from '../files/persistence.js';
import type { CollectionIdentity } from './collection.js';
import type { LabelTable, LoadedLabels } from './label-table.js';

/**
 * A header's entries as a label table takes them, with the live counts per datasource and custom
 * id. Refused when an entry names a datasource or custom id the header's tables do not have.
 */
export function labelsOfHeader(header: IndexHeader): LoadedLabels {
  const { ids, datasources, customIds } = header.entries;
  const sourceCount = header.datasourceIds.length;
  const tenantCount = header.customIds.length;
  // The header's tables are distinct names (see headerContent): its indexes are the numbers.
  const datasourceLive = new Int32Array(sourceCount);
  const customIdLive = new Int32Array(tenantCount);
  let live = 0;
  for (let label = 0; label < datasources.length; label++) {
    const source = datasources[label] as number;
    if (source < 0) continue;
    const tenant = customIds[label] as number;
    if (source >= sourceCount || tenant < -1 || tenant >= tenantCount) throw new Error(`header entry of label ${label} is out of range`);
    datasourceLive[source] = (datasourceLive[source] as number) + 1;
    if (tenant >= 0) customIdLive[tenant] = (customIdLive[tenant] as number) + 1;
    live += 1;
  }
  return {
    nextLabel: header.nextLabel,
    ids,
    datasources,
    customIds,
    datasourceNames: header.datasourceIds,
    customIdNames: header.customIds,
    datasourceLive,
    customIdLive,
    live,
  };
}

/**
 * Everything the header records besides the binary's identity. The names tables hold only the
 * datasources and custom ids of live labels, each once, so a header never carries retired names.
 */
export function headerContent(labels: LabelTable, identity: CollectionIdentity, sequence: number, generation: number): HeaderContent {
  const { nextLabel } = labels;
  const datasourceIds: string[] = [];
  const customIds: string[] = [];
  // Interned number → position in the header's table.
  const sourceIndex = new Map<number, number>();
  const tenantIndex = new Map<number, number>();
  const ids = new Array<string>(nextLabel).fill('');
  const sources = new Int32Array(nextLabel).fill(-1);
  const tenants = new Int32Array(nextLabel).fill(-1);
  for (let label = 0; label < nextLabel; label++) {
    const id = labels.idOf(label);
    if (id === undefined) continue;
    const source = labels.datasourceAt(label);
    let at = sourceIndex.get(source);
    if (at === undefined) sourceIndex.set(source, (at = datasourceIds.push(labels.datasourceName(source)) - 1));
    const tenant = labels.customIdAt(label);
    if (tenant >= 0) {
      let tenantAt = tenantIndex.get(tenant);
      if (tenantAt === undefined) tenantIndex.set(tenant, (tenantAt = customIds.push(labels.customIdName(tenant)) - 1));
      tenants[label] = tenantAt;
    }
    ids[label] = id;
    sources[label] = at;
  }
  return {
    ...identity,
    sequence,
    generation,
    nextLabel,
    datasourceIds: PackedStrings.of(datasourceIds),
    customIds: PackedStrings.of(customIds),
    entries: { ids: PackedStrings.of(ids), datasources: sources, customIds: tenants },
  };
}
