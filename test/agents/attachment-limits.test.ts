import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileLoading } from '../../adapters/loaders/index.js';
import { webLoader } from '../../adapters/web/index.js';
import type { AttachmentClock } from '../../src/agents/attachment-limits.js';
import type { FileLoading } from '../../src/ports/loader.js';
import { tempDir } from '../helpers/setups.js';
import { openAgentSetup, type AgentSetup } from './helpers.js';

/** Time that moves only when the test says: deadlines fire on `advance`, never because a machine is slow. */
function manualClock(): AttachmentClock & { advance(ms: number): void; pending(): number } {
  let time = 0;
  const timers = new Set<{ at: number; fire: () => void }>();
  return {
    now: () => time,
    after(ms, fire) {
      const timer = { at: time + ms, fire };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      time += ms;
      for (const timer of [...timers]) {
        if (timer.at > time) continue;
        timers.delete(timer);
        timer.fire();
      }
    },
    pending: () => timers.size,
  };
}

const LIMITS = {
  maxAttachments: 3,
  maxBytes: 5_000,
  deadlineMs: 1_000,
  maxRedirects: 2,
  visitorAttachmentsPerMinute: 4,
  visitorConcurrency: 1,
};

/**
 * The limits on one query's attachments, with the real web loader fetching from a real HTTP server
 * and the real file loaders (parser processes) parsing.
 */
describe('attachment limits', () => {
  const temp = tempDir('ragdesk-attach-limits-');
  const clock = manualClock();
  let server: Server;
  let port: number;
  let setup: AgentSetup;
  let agentId: string;
  const requested: string[] = [];
  /** Responses held open by `/hold` until the test ends them. */
  const held: ServerResponse[] = [];
  const parsedFor: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '';
      if (path !== '/robots.txt') requested.push(path);
      const hop = /^\/hop\/(\d+)$/.exec(path);
      if (hop) {
        const left = Number(hop[1]);
        if (left > 0) return void response.writeHead(302, { location: `/hop/${left - 1}` }).end();
        return void response.writeHead(200, { 'content-type': 'text/plain' }).end('Arrived after the redirects.');
      }
      if (path === '/slow') {
        // Headers and a little of the body, then nothing: only the deadline ends this fetch.
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('The beginning of a body that never ends. ');
        setImmediate(() => clock.advance(LIMITS.deadlineMs));
        return;
      }
      if (path === '/hold') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        held.push(response);
        return;
      }
      const size = /^\/(\d+)\.txt$/.exec(path);
      if (size) {
        const text = `File ${path}. `.padEnd(Number(size[1]), 'x');
        return void response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
    const files = fileLoading();
    const recording: FileLoading = {
      ...files,
      load: (file) => {
        parsedFor.push(`${file.owner}${file.yieldToOwner ? ' (yields)' : ''}`);
        return files.load(file);
      },
    };
    setup = openAgentSetup(temp.dir, {
      extra: {
        files: recording,
        web: webLoader({
          lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
          isAllowedAddress: (_address, hostname) => hostname === 'files.test',
        }),
        agents: { attachments: LIMITS, attachmentClock: clock },
      },
    });
    agentId = (await setup.ragdesk.agents.create({ name: 'Support', description: 'Answers' }, { ownerId: 'olga' })).id;
  });
  afterAll(async () => {
    for (const response of held) response.end();
    await setup?.ragdesk.close();
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
    temp.remove();
  });

  const at = (path: string) => `http://files.test:${port}${path}`;
  const file = (path: string, name = path.slice(1)) => ({ name, url: at(path), mimeType: 'text/plain' });
  async function ask(attachments: Array<{ name: string; url: string; mimeType?: string }>, caller: 'owner' | 'visitor' = 'owner') {
    const response = await setup.ragdesk.agents.query(agentId, { query: 'What do my files say?', attachments }, { caller });
    const prompt = setup.chat.requests.at(-1)!.messages.at(-1)!.content;
    return { warnings: response.warnings ?? [], prompt };
  }
  const readNames = (prompt: string) => [...prompt.matchAll(/FILENAME: (\S+) CONTENT:/g)].map((match) => match[1]);

  it('reads at most maxAttachments, in order, and says how many were left', async () => {
    parsedFor.length = 0;
    const { warnings, prompt } = await ask(['/101.txt', '/102.txt', '/103.txt', '/104.txt', '/105.txt'].map((path) => file(path)));
    expect(readNames(prompt)).toEqual(['101.txt', '102.txt', '103.txt']);
    expect(warnings).toContain('2 attachment(s) past the limit of 3 per query were not read (too_many_attachments)');
    expect(requested).not.toContain('/104.txt');
    // Parsed in the agent owner's turn of the parser queue.
    expect(parsedFor).toEqual(['olga', 'olga', 'olga']);
  });

  it('stops at the byte budget of the query', async () => {
    const { warnings, prompt } = await ask([file('/2000.txt'), file('/2001.txt'), file('/2002.txt')]);
    expect(readNames(prompt)).toEqual(['2000.txt', '2001.txt']);
    expect(warnings).toContain(
      'attachment "2002.txt" was not read: the attachments passed the 5000-byte budget of a query (attachment_bytes)',
    );
  });

  it('follows at most maxRedirects redirects per attachment', async () => {
    const { warnings, prompt } = await ask([file('/hop/2', 'two-hops'), file('/hop/3', 'three-hops')]);
    expect(readNames(prompt)).toEqual(['two-hops']);
    expect(prompt).toContain('Arrived after the redirects.');
    expect(warnings).toContain('attachment "three-hops" could not be read (upstream_failed: too_many_redirects)');
  });

  it('one deadline for all attachments: a body that never ends is cut, and what follows is not fetched', async () => {
    requested.length = 0;
    const { warnings, prompt } = await ask([file('/110.txt'), file('/slow'), file('/111.txt')]);
    expect(readNames(prompt)).toEqual(['110.txt']);
    expect(warnings).toContain('attachment "slow" was not read within the 1000 ms all attachments may take (attachment_deadline)');
    expect(warnings).toContain('attachment "111.txt" was not read within the 1000 ms all attachments may take (attachment_deadline)');
    expect(requested).toEqual(['/110.txt', '/slow']);
    expect(clock.pending()).toBe(0);
  });

  it("visitors of an agent share one attachment budget per minute; the owner's queries do not draw on it", async () => {
    clock.advance(60_000);
    parsedFor.length = 0;
    const first = await ask([file('/120.txt'), file('/121.txt'), file('/122.txt')], 'visitor');
    expect(readNames(first.prompt)).toEqual(['120.txt', '121.txt', '122.txt']);
    // A visitor's attachments are parsed in the owner's turn, behind the owner's own files.
    expect(parsedFor).toEqual(['olga (yields)', 'olga (yields)', 'olga (yields)']);
    const second = await ask([file('/123.txt'), file('/124.txt'), file('/125.txt')], 'visitor');
    expect(readNames(second.prompt)).toEqual(['123.txt']);
    expect(second.warnings).toContain(
      "2 attachment(s) were not read: this agent's visitors used their attachment budget for now (visitor_attachment_budget)",
    );
    const owner = await ask([file('/126.txt'), file('/127.txt'), file('/128.txt')]);
    expect(readNames(owner.prompt)).toEqual(['126.txt', '127.txt', '128.txt']);
    clock.advance(30_000);
    const later = await ask([file('/129.txt'), file('/130.txt'), file('/131.txt')], 'visitor');
    expect(readNames(later.prompt)).toEqual(['129.txt', '130.txt']);
  });

  it("visitors of an agent read one attachment at a time (visitorConcurrency 1): another visitor's waits", async () => {
    clock.advance(60_000);
    requested.length = 0;
    const holding = ask([{ name: 'held', url: at('/hold'), mimeType: 'text/plain' }], 'visitor');
    await until(() => held.length === 1);
    const waiting = ask([file('/140.txt')], 'visitor');
    // The owner is not queued behind visitors.
    const owner = await ask([file('/141.txt')]);
    expect(readNames(owner.prompt)).toEqual(['141.txt']);
    expect(requested).not.toContain('/140.txt');
    held[0]!.end('Held until now.');
    expect(readNames((await holding).prompt)).toEqual(['held']);
    expect(readNames((await waiting).prompt)).toEqual(['140.txt']);
  });
});

/** Waits for a condition set by the test server (a few event-loop turns; no timing asserted). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
