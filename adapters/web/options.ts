import { lookup as dnsLookup } from 'node:dns/promises';
import { choiceOption, integerOption } from '../kit/option-checks.js';
import { privateAllowList, type PrivateAllowList } from './private-allow-list.js';

/** One resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface WebLoaderOptions {
  /** Reach every loopback, private, link-local and other non-public address. Default false. */
  allowPrivateNetwork?: boolean;
  /**
   * The non-public places this loader may reach, everything else non-public staying refused: CIDR
   * blocks or single addresses (`10.0.0.0/8`, `127.0.0.1`, `::1`), which allow those addresses
   * whatever name led there, and host names (`wiki.internal`, `*.corp.example`, `localhost`), which
   * allow whatever their name resolves to. `ragdesk serve --allow-private-urls` sets it. Default none.
   */
  allowPrivateUrls?: readonly string[];
  /** Time limit of one HTTP request (DNS + connect + headers + body), per redirect hop. Default 15000. */
  timeoutMs?: number;
  /** Largest body accepted, counted on the wire and again after decompression. Default 10 MB. */
  maxBytes?: number;
  /** Redirects followed per request; each hop is checked by the address policy again. Default 5. */
  maxRedirects?: number;
  /** `User-Agent` header; its product token (`ragdesk`) selects the robots.txt group. */
  userAgent?: string;
  /** Requests in flight per host, across all calls on this loader. Default 2. */
  perHostConcurrency?: number;
  /** DNS override; default `node:dns/promises` `lookup(hostname, { all: true })`. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * Replaces the built-in address check (not applied when `allowPrivateNetwork` is true): return
   * true to let the loader connect to `address` (resolved from `hostname`). Meant for tests and
   * for allowing one known internal host; compose with `isPrivateAddress` from this module.
   */
  isAllowedAddress?: (address: string, hostname: string) => boolean;
  /**
   * Where pages are parsed: `'worker'` (default) on a parser thread, so a large page never blocks
   * the event loop and a parse can be aborted or timed out; `'main'` on the calling thread.
   */
  parser?: 'worker' | 'main';
  /**
   * Where `parser: 'worker'` runs: `'process'` (default), a child process whose resident memory is
   * capped by `parserMaxMemoryMb`, or `'thread'`, a worker thread of this process. A page of
   * 220,000 links takes 0.5-0.7 s of CPU and ~135 MB to extract, memory a thread adds to the
   * server's own (with linkedom, before 2026-11-26: 4-6 s and 270-530 MB per page, and a crawl of
   * such pages grew the server by 1.2-1.5 GB).
   */
  parserIsolation?: 'process' | 'thread';
  /** Resident memory of a parser process (Linux, checked every 50 ms); past it the page fails with `parser_out_of_memory`. Default 512. */
  parserMaxMemoryMb?: number;
  /** Parser threads (default 1) and the time limit of one page's extraction (default 60000). */
  parserThreads?: number;
  parseTimeoutMs?: number;
  /**
   * URLs a site crawl may look at per page of its `maxPages` (taken from sitemaps or queued from
   * links, whether loaded, filtered out, disallowed by robots.txt or repeated); past
   * `maxPages × crawlUrlsPerPage` the crawl ends. Bounds a crawl's memory and time whatever the
   * sitemaps or pages list. Default 10.
   */
  crawlUrlsPerPage?: number;
  /**
   * Links kept from one page (the first ones, in document order; default 10,000). A crawl looks at
   * `maxPages × crawlUrlsPerPage` URLs at most, so a page of 220,000 links only cost memory (the
   * crawl of such pages grew the server by 1.2 GB) and the copy of its list from the parser thread.
   */
  maxLinksPerPage?: number;
}

export interface ResolvedWebLoaderOptions {
  allowPrivateNetwork: boolean;
  allowPrivateUrls: PrivateAllowList | undefined;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  perHostConcurrency: number;
  lookup: (hostname: string) => Promise<ResolvedAddress[]>;
  isAllowedAddress: ((address: string, hostname: string) => boolean) | undefined;
  parser: 'worker' | 'main';
  parserIsolation: 'process' | 'thread';
  parserMaxMemoryMb: number;
  parserThreads: number;
  parseTimeoutMs: number;
  crawlUrlsPerPage: number;
  maxLinksPerPage: number;
}

export const DEFAULT_USER_AGENT = 'ragdesk/0.1 (+https://github.com/ragdesk)';

async function defaultLookup(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

export function resolveOptions(options: WebLoaderOptions = {}): ResolvedWebLoaderOptions {
  return {
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    allowPrivateUrls: privateAllowList(options.allowPrivateUrls, 'webLoader.allowPrivateUrls'),
    timeoutMs: integerOption('webLoader', 'timeoutMs', options.timeoutMs, 15_000),
    maxBytes: integerOption('webLoader', 'maxBytes', options.maxBytes, 10 * 1024 * 1024),
    maxRedirects: integerOption('webLoader', 'maxRedirects', options.maxRedirects, 5, 0),
    userAgent: options.userAgent?.trim() || DEFAULT_USER_AGENT,
    perHostConcurrency: integerOption('webLoader', 'perHostConcurrency', options.perHostConcurrency, 2),
    lookup: options.lookup ?? defaultLookup,
    isAllowedAddress: options.isAllowedAddress,
    parser: choiceOption('webLoader', 'parser', options.parser, ['worker', 'main'], 'worker'),
    parserIsolation: choiceOption<'process' | 'thread'>(
      'webLoader',
      'parserIsolation',
      options.parserIsolation,
      ['process', 'thread'],
      'process',
    ),
    parserMaxMemoryMb: integerOption('webLoader', 'parserMaxMemoryMb', options.parserMaxMemoryMb, 512),
    parserThreads: integerOption('webLoader', 'parserThreads', options.parserThreads, 1),
    parseTimeoutMs: integerOption('webLoader', 'parseTimeoutMs', options.parseTimeoutMs, 60_000),
    crawlUrlsPerPage: integerOption('webLoader', 'crawlUrlsPerPage', options.crawlUrlsPerPage, 10),
    maxLinksPerPage: integerOption('webLoader', 'maxLinksPerPage', options.maxLinksPerPage, 10_000, 0),
  };
}
