/** `ragdesk/web`: web pages and whole sites for `web_page` / `web_site` datasources. */
export { webLoader } from './web-loader.js';
export { DEFAULT_USER_AGENT, type ResolvedAddress, type WebLoaderOptions } from './options.js';
export { isPrivateAddress, blockedRange } from './ip-ranges.js';
export { parseRobots, type RobotsRules, type RobotsVerdict } from './robots.js';
export { parseSitemap, type ParsedSitemap } from './sitemap.js';
