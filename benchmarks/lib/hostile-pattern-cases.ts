/**
 * bench:hostile cases for wildcard patterns that a backtracking regular expression matches in
 * exponential time, served by an attacker host on 127.0.0.1 (which the server's web loader lets
 * through by its address hook):
 * - a robots.txt rule `/*a*a*a*a*a*a*a*a*b` reached by one anonymous query to a public agent with
 *   an attachment URL of 52 `a`s (24.1 s of event-loop stall when the rule was a RegExp);
 * - the same rule reached by a `web_page` datasource of that URL;
 * - a `web_site` crawl whose include glob `*a*a*a*a*a*a*a*a*b` meets a link of 45 `a`s (7.7 s).
 * The inputs are the same at every scale: the point is the pattern, not the size.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostileCase, ScriptTarget, ScriptedRun } from './hostile-cases.js';

const EIGHT_STARS = '*a*a*a*a*a*a*a*a*b';

interface AttackerHost {
  origin: string;
  close: () => Promise<void>;
}

/** robots.txt with the exponential rule (or none); every other path a small page linking to `links`. */
async function startAttacker(links: readonly string[], robots = true): Promise<AttackerHost> {
  const server: Server = createServer((request, response) => {
    if (request.url === '/robots.txt' && robots) {
      response.writeHead(200, { 'content-type': 'text/plain' });
      return void response.end(`User-agent: *\nDisallow: /${EIGHT_STARS}\n`);
    }
    if (request.url === '/sitemap.xml' || request.url === '/robots.txt') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const anchors = links.map((link) => `<a href="${link}">next</a>`).join(' ');
    response.end(`<html><head><title>Attacker</title></head><body><main><p>Tides and retrieval.</p>${anchors}</main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function createdDatasource(target: ScriptTarget, body: unknown, attacker: AttackerHost): Promise<ScriptedRun> {
  const { status, json } = await target.api('POST', '/datasources', body);
  if (status >= 400)
    return { settled: { status: `http ${status}`, error: JSON.stringify(json).slice(0, 160), chunks: 0 }, close: attacker.close };
  return { datasourceId: (json as { id: string }).id, close: attacker.close };
}

async function anonymousAttachmentQuery(target: ScriptTarget): Promise<ScriptedRun> {
  const path = `/${'a'.repeat(52)}`;
  const attacker = await startAttacker([]);
  const { json: agent } = await target.api('POST', '/agents', {
    name: 'public helper',
    description: 'answers anyone',
    visibility: 'public',
    tools: [{ type: 'datastore', datastoreId: target.datastoreId }],
  });
  const agentId = (agent as { id: string }).id;
  // No key: anyone on the internet can send this.
  const { status, json } = await target.api(
    'POST',
    `/agents/${agentId}/query`,
    { query: 'What does the attachment say?', attachments: [{ name: 'notes', url: `${attacker.origin}${path}` }] },
    { anonymous: true },
  );
  const warnings = (json as { warnings?: string[] } | null)?.warnings ?? [];
  const error = status >= 400 ? JSON.stringify(json).slice(0, 160) : warnings.join('; ').slice(0, 160);
  return {
    settled: { status: status === 200 ? 'answered' : `http ${status}`, error, chunks: 0 },
    close: async () => {
      await attacker.close();
      await target.api('DELETE', `/agents/${agentId}`).catch(() => undefined);
    },
  };
}

export function patternCases(): HostileCase[] {
  return [
    {
      name: 'robots.txt rule of 8 *s, anonymous query attachment',
      make: () => ({ kind: 'scripted', run: anonymousAttachmentQuery }),
    },
    {
      name: 'robots.txt rule of 8 *s, web_page datasource',
      make: () => ({
        kind: 'scripted',
        run: async (target) => {
          const attacker = await startAttacker([]);
          const body = {
            type: 'web_page',
            datastoreId: target.datastoreId,
            config: { source_url: `${attacker.origin}/${'a'.repeat(52)}` },
          };
          return createdDatasource(target, body, attacker);
        },
      }),
    },
    {
      name: 'include glob of 8 *s, web_site crawl',
      make: () => ({
        kind: 'scripted',
        run: async (target) => {
          // No robots.txt here: the include pattern alone is what the link meets.
          const attacker = await startAttacker([`/${'a'.repeat(45)}`], false);
          const body = {
            type: 'web_site',
            datastoreId: target.datastoreId,
            config: { source_url: `${attacker.origin}/`, include: [EIGHT_STARS] },
          };
          return createdDatasource(target, body, attacker);
        },
      }),
    },
  ];
}
