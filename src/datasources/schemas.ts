import { z } from 'zod';
import { idSchema, metadataSchema } from '../validation.js';
import { readUrlPattern } from '../text/url-patterns.js';
import { refreshSchema } from './refresh-schedule.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A crawl include/exclude pattern the web loader can match in linear time (see url-patterns.ts). */
const urlPattern = z
  .string()
  .min(1)
  .max(500)
  .check((context) => {
    const form = readUrlPattern(context.value);
    if ('refused' in form) context.issues.push({ code: 'custom', message: form.refused, input: context.value });
  });

const common = {
  datastoreId: idSchema,
  name: z.string().max(500).optional(),
  custom_id: idSchema.optional(),
  metadata: metadataSchema.optional(),
};

/** form A (the multipart fields, with the file as bytes). */
export const fileDatasourceSchema = z.object({
  ...common,
  type: z.literal('file'),
  file: z.object({
    bytes: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be a Uint8Array'),
    mimeType: z.string().max(200).optional(),
    fileName: z.string().max(1000).optional(),
  }),
});

/** form B. */
export const webPageDatasourceSchema = z.object({
  ...common,
  type: z.literal('web_page'),
  config: z.object({
    source_url: httpUrl,
    /** Load the page even where its site's robots.txt disallows it (the owner asked for this page). */
    ignore_robots_txt: z.boolean().optional(),
    /** Loads the page again on this schedule (`{ every: 'daily' }`); null or absent: only when asked. */
    refresh: refreshSchema.optional(),
  }),
});

export const webSiteDatasourceSchema = z.object({
  ...common,
  type: z.literal('web_site'),
  config: z
    .object({
      sitemap: httpUrl.optional(),
      source_url: httpUrl.optional(),
      max_pages: z.int().min(1).max(10_000).optional(),
      max_depth: z.int().min(0).max(20).optional(),
      /** Only URLs matching one of these patterns (`*` globs, or `/.../` limited to literals, `.*`, `^`, `$`). */
      include: z.array(urlPattern).max(100).optional(),
      /** URLs matching one of these are skipped. */
      exclude: z.array(urlPattern).max(100).optional(),
      /** Crawls the site again on this schedule (`{ every: 'daily' }`); null or absent: only when asked. */
      refresh: refreshSchema.optional(),
    })
    .refine((config) => config.sitemap !== undefined || config.source_url !== undefined, {
      message: 'needs sitemap or source_url',
    }),
});

export const datasourceCreateSchema = z.discriminatedUnion('type', [
  fileDatasourceSchema,
  webPageDatasourceSchema,
  webSiteDatasourceSchema,
]);

export type DatasourceCreateInput = z.input<typeof datasourceCreateSchema>;

/**
 * Datasource Update: name and metadata, changed in place. Nothing is loaded or embedded again;
 * metadata filters see the new values at once (they read the datasources, not the chunks).
 */
export const datasourceUpdateSchema = z
  .object({
    name: z.string().max(500).optional(),
    metadata: metadataSchema.optional(),
    /** A web page's or site's refresh schedule (`{ every }`), null to stop it. */
    refresh: refreshSchema.optional(),
  })
  .strict();

export type DatasourceUpdateInput = z.input<typeof datasourceUpdateSchema>;
