import type { Metadata } from '../ports/records.js';

/** A site's page: the site's metadata, with the page's own `source` (its URL) over it. */
export function pageMetadata(site: Metadata, page: Metadata): Metadata {
  return typeof page.source === 'string' ? { ...site, source: page.source } : { ...site };
}
