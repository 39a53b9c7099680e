import { z } from 'zod';
import {
  agentDisplaySettings,
  schemas,
  type Agent,
  type AgentDisplaySettings,
  type ChunkPage,
  type CrawlCounts,
  type DatasourceCrawl,
  type DatasourceRecord,
} from '../../src/index.js';

/**
 * HTTP request bodies, derived from the library's own schemas (the OpenAPI document is generated
 * from these). Only what HTTP shapes differently is changed here: agents name their datastores as
 * `tools` (as the reference service does), and owners come from the API key, never from a body.
 */
const agentToolSchema = z.strictObject({
  type: z.literal('datastore'),
  datastoreId: schemas.idSchema,
});

export const agentCreateBodySchema = schemas.agentCreateSchema
  .omit({ datastoreIds: true })
  .extend({ tools: z.array(agentToolSchema).max(100).default([]) });

export const agentUpdateBodySchema = schemas.agentUpdateSchema
  .omit({ datastoreIds: true })
  .extend({ tools: z.array(agentToolSchema).max(100).optional() });

export const datastoreCreateBodySchema = schemas.datastoreCreateSchema;

/** Datastore Upsert wraps the documents: `{ "documents": [...] }`. */
export const upsertBodySchema = z.object({ documents: schemas.upsertSchema });

/** form B (JSON): web pages and sites; files come as multipart (form A). */
export const webDatasourceBodySchema = z.discriminatedUnion('type', [schemas.webPageDatasourceSchema, schemas.webSiteDatasourceSchema]);

/** form A: the text fields of the multipart form (the file part is checked apart). */
export const fileFormFieldsSchema = z.object({
  type: z.literal('file'),
  datastoreId: schemas.idSchema,
  fileName: z.string().max(1000).optional(),
  custom_id: schemas.idSchema.optional(),
  /** The document's metadata as a JSON object in one text field (a form has no nested fields). */
  metadata: z
    .string()
    .max(1_000_000)
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(schemas.metadataSchema)
    .optional(),
});

/** Datastore File Upload: the datastore comes from the path. */
export const fileUploadFieldsSchema = fileFormFieldsSchema.omit({ type: true, datastoreId: true });

export type AgentTool = z.output<typeof agentToolSchema>;

/**
 * The wire shape of an agent: the library's fields, `tools`, and the settings again at the top level
 * with their values in effect, where the reference service's clients read them.
 */
export type AgentWire = Agent & AgentDisplaySettings & { tools: AgentTool[] };

export function agentToWire(agent: Agent): AgentWire {
  return { ...agent, ...agentDisplaySettings(agent), tools: agent.datastoreIds.map((datastoreId) => ({ type: 'datastore', datastoreId })) };
}

export function toolsToDatastoreIds(tools: readonly AgentTool[]): string[] {
  return tools.map((tool) => tool.datastoreId);
}

/**
 * The wire shape of a datasource: the tenant id is `custom_id`, the one spelling the form field,
 * the filters, fragments and sources use, and is mirrored in `config.custom_id` as the reference
 * service returns it. (The library's record keeps its camelCase `customId` property.)
 */
export type DatasourceWire = Omit<DatasourceRecord, 'customId'> & { custom_id: string | null; crawl?: CrawlWire };

/** A page of chunks with the API's snake_case names. */
export function chunkPageToWire(page: ChunkPage) {
  return {
    chunks: page.chunks.map((chunk) => ({
      id: chunk.id,
      position: chunk.position,
      text: chunk.text,
      page_number: chunk.pageNumber,
      token_count: chunk.tokenCount,
      custom_id: chunk.customId,
    })),
    total: page.total,
    offset: page.offset,
    limit: page.limit,
  };
}

/** A web datasource's crawl on the wire: the counts at the top, then the last result and the schedule. */
type CrawlWire = CrawlCounts & Omit<DatasourceCrawl, 'counts'>;

/**
 * A site, or a page that never loaded, has no title to be named by: such a datasource is shown by
 * its URL's host and path instead of an empty name.
 */
function datasourceDisplayName(datasource: Pick<DatasourceRecord, 'name' | 'type' | 'config'>): string {
  if (datasource.name || (datasource.type !== 'web_page' && datasource.type !== 'web_site')) return datasource.name;
  const source = datasource.config.source_url ?? datasource.config.sitemap;
  if (typeof source !== 'string') return datasource.name;
  try {
    const url = new URL(source);
    return `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return source;
  }
}

export function datasourceToWire(datasource: DatasourceRecord, crawl?: DatasourceCrawl): DatasourceWire {
  const { customId, config, ...rest } = datasource;
  const wire: DatasourceWire = {
    ...rest,
    name: datasourceDisplayName(datasource),
    custom_id: customId,
    config: customId === null ? config : { ...config, custom_id: customId },
  };
  if (crawl) {
    const { counts, ...others } = crawl;
    wire.crawl = { ...counts, ...others };
  }
  return wire;
}
