import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileLoading } from '../../adapters/loaders/index.js';
import { isPrivateAddress, webLoader } from '../../adapters/web/index.js';
import { ATTACHMENT_TEXT_LIMIT } from '../../src/agents/attachments.js';
import { buildFixtures, PLANTED } from '../../fixtures/make-fixtures.js';
import { tempDir } from '../helpers/setups.js';
import { openAgentSetup, type AgentSetup } from './helpers.js';

const FIXTURES = buildFixtures();
/** A CSV whose text is longer than all attachments together may be. */
const LONG_CSV = `id,note\n${Array.from({ length: 2_000 }, (_, row) => `${row},row ${row} of the long sheet ${'x'.repeat(20)}`).join('\n')}\n`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

/**
 * Attachments sent with a query: fetched through the real web loader from a real HTTP server and
 * parsed by the real file loaders (parser processes), as the model sees them in its prompt.
 */
describe('agent query attachments', () => {
  const temp = tempDir('ragdesk-attach-');
  let files: Server;
  let port: number;
  let setup: AgentSetup;
  let agentId: string;

  beforeAll(async () => {
    const bodies: Record<string, { type: string; body: Uint8Array | string }> = {
      '/sample.pdf': { type: 'application/pdf', body: FIXTURES['sample.pdf']! },
      // Object storage often serves uploads with a generic type: the bytes decide.
      '/sample.docx': { type: 'application/octet-stream', body: FIXTURES['sample.docx']! },
      '/long.csv': { type: 'text/csv', body: LONG_CSV },
      '/junk.bin': { type: 'application/octet-stream', body: FIXTURES['junk.bin']! },
      '/photo.png': { type: 'image/png', body: PNG },
    };
    files = createServer((request, response) => {
      const found = bodies[request.url ?? ''];
      if (!found) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': found.type });
      response.end(found.body);
    });
    await new Promise<void>((done) => files.listen(0, '127.0.0.1', done));
    port = (files.address() as AddressInfo).port;
    setup = openAgentSetup(temp.dir, {
      extra: {
        files: fileLoading(),
        // files.test stands for a public storage host (it is this loopback server); any other
        // private address keeps the default refusal.
        web: webLoader({
          lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
          isAllowedAddress: (address, hostname) => hostname === 'files.test' || !isPrivateAddress(address),
        }),
        // Over this, a fetched attachment is refused like an upload would be.
        usage: { maxFileBytes: 64 * 1024 },
      },
    });
    agentId = (await setup.ragdesk.agents.create({ name: 'Support', description: 'Answers' })).id;
  });
  afterAll(async () => {
    await setup?.ragdesk.close();
    await new Promise((done) => files?.close(done));
    temp.remove();
  });

  const at = (path: string) => `http://files.test:${port}${path}`;
  async function ask(attachments: Array<{ name: string; url: string; mimeType?: string }>) {
    const response = await setup.ragdesk.agents.query(agentId, { query: 'What do my files say?', attachments });
    const prompt = setup.chat.requests.at(-1)!.messages.at(-1)!.content;
    return { warnings: response.warnings ?? [], prompt };
  }

  it('PDF and DOCX attachments reach the prompt as FILENAME/CONTENT parts with their text', async () => {
    const { warnings, prompt } = await ask([
      { name: 'report.pdf', url: at('/sample.pdf'), mimeType: 'application/pdf' },
      { name: 'letter.docx', url: at('/sample.docx'), mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
    ]);
    expect(warnings.filter((warning) => warning.includes('attachment'))).toEqual([]);
    expect(prompt).toContain('What do my files say?\nFILENAME: report.pdf CONTENT: ');
    for (const planted of PLANTED.pdfPages) expect(prompt).toContain(planted);
    expect(prompt).toContain('\n###\nFILENAME: letter.docx CONTENT: ');
    expect(prompt).toContain(`First paragraph ${PLANTED.docx}.`);
    // The PDF's text sits in its own part, before the DOCX's.
    expect(prompt.indexOf(PLANTED.pdfPages[2])).toBeLessThan(prompt.indexOf('FILENAME: letter.docx'));
  });

  it('an attachment at a private address is refused unless the loader allows that host', async () => {
    const { warnings, prompt } = await ask([
      { name: 'allowed.pdf', url: at('/sample.pdf') },
      { name: 'private.pdf', url: `http://127.0.0.1:${port}/sample.pdf` },
    ]);
    expect(prompt).toContain('FILENAME: allowed.pdf CONTENT: ');
    expect(prompt).not.toContain('FILENAME: private.pdf');
    expect(warnings).toContain('attachment "private.pdf" could not be read (forbidden)');
  });

  it('a file over the size limit is refused, and text past the attachment limit is cut, each with a warning', async () => {
    const big = await ask([{ name: 'big.csv', url: at('/long.csv'), mimeType: 'text/csv' }]);
    expect(LONG_CSV.length).toBeGreaterThan(64 * 1024);
    expect(big.warnings).toContain('attachment "big.csv" could not be read (payload_too_large)');
    expect(big.prompt).not.toContain('FILENAME: big.csv');

    const { warnings, prompt } = await askWithLargerLimit();
    expect(warnings).toContain(`attachment "long.csv" was cut to fit the ${ATTACHMENT_TEXT_LIMIT}-character attachment limit`);
    const part = prompt.slice(prompt.indexOf('FILENAME: long.csv CONTENT: ') + 'FILENAME: long.csv CONTENT: '.length);
    // The part is the limit's worth of the sheet (the prompt template may add a few characters after it).
    expect(part.length).toBeGreaterThanOrEqual(ATTACHMENT_TEXT_LIMIT);
    expect(part.length).toBeLessThan(ATTACHMENT_TEXT_LIMIT + 50);
    expect(part).toContain('row 1 of the long sheet');
    expect(part).not.toContain('row 1999 of the long sheet');
  });

  it('images and types no file loader reads stay warnings naming why', async () => {
    const { warnings, prompt } = await ask([
      { name: 'photo.png', url: at('/photo.png'), mimeType: 'image/png' },
      { name: 'photo-untyped', url: at('/photo.png') },
      { name: 'data.bin', url: at('/junk.bin') },
    ]);
    expect(prompt).not.toContain('FILENAME:');
    expect(warnings).toContain('attachment "photo.png" is an image; the chat model here takes no images');
    expect(warnings).toContain('attachment "photo-untyped" is an image; the chat model here takes no images');
    expect(warnings).toContain('attachment "data.bin" was not read: no file loader reads its type (application/octet-stream)');
  });

  /** The same files through a second instance whose usage limit lets the long CSV through. */
  async function askWithLargerLimit() {
    const other = tempDir('ragdesk-attach-');
    const larger = openAgentSetup(other.dir, {
      extra: {
        files: fileLoading({ parser: 'main' }),
        web: webLoader({
          lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
          isAllowedAddress: (_address, hostname) => hostname === 'files.test',
        }),
      },
    });
    try {
      const agent = await larger.ragdesk.agents.create({ name: 'Support', description: 'Answers' });
      const response = await larger.ragdesk.agents.query(agent.id, {
        query: 'q',
        attachments: [{ name: 'long.csv', url: at('/long.csv'), mimeType: 'text/csv' }],
      });
      return { warnings: response.warnings ?? [], prompt: larger.chat.requests.at(-1)!.messages.at(-1)!.content };
    } finally {
      await larger.ragdesk.close();
      other.remove();
    }
  }
});
