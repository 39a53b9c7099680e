/**
 * A console address with a malformed percent-encoding (`/chat/%E0%A4%A`): the console's client
 * router cannot decode it and used to leave a blank page. The server answers a 400 page that says
 * what is wrong, seen here in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { CONSOLE_CSP } from '../../adapters/http/ui/serve-ui.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { startServer, type RunningServer } from '../http/servers.js';
import { browserSkipReason, launchBrowser, shot, type Browser } from './browser.js';

const BAD = ['/chat/%E0%A4%A', '/agents/%', '/datastores/%ZZ'];

describe('a console address that cannot be decoded', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let nested: RunningServer;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.watch(createHttpHandler(fixture.ragdesk, { ui: true })));
    nested = await startServer('express', fixture.watch(createHttpHandler(fixture.ragdesk, { ui: { basePath: '/console' } })));
  });
  afterAll(async () => {
    await server?.close();
    await nested?.close();
    await fixture?.close();
  });

  it('answers a 400 page with the console headers, at the root and under a base path', async () => {
    for (const [origin, prefix] of [
      [server.origin, ''],
      [nested.origin, '/console'],
    ] as const) {
      for (const path of BAD) {
        const response = await fetch(origin + prefix + path);
        expect(response.status, path).toBe(400);
        expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        const html = await response.text();
        expect(html).toContain('<h1>Bad address</h1>');
        expect(html).toContain(`<a href="${prefix}/">Open the console</a>`);
      }
      // A well-formed escape still gets the console page.
      expect((await fetch(`${origin}${prefix}/chat/%E0%A4%A4`)).status).toBe(200);
    }
    // The fetch side (Hono, workers) answers the same.
    const handler = createHttpHandler(fixture.ragdesk, { ui: true });
    const answer = await handler.fetch(new Request('http://console.test/chat/%E0%A4%A'));
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('<h1>Bad address</h1>');
  });

  const skip = browserSkipReason();
  describe.skipIf(skip !== null)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => browser?.close());

    it('shows what is wrong and a way back, instead of a blank page', async () => {
      const page = await browser.page();
      const response = await page.goto(`${server.origin}/chat/%E0%A4%A`);
      expect(response?.status()).toBe(400);
      expect(await page.locator('h1').innerText()).toBe('Bad address');
      expect(await page.locator('body').innerText()).toContain('malformed percent-encoding');
      await shot(page, 'bad-address');
      await page.locator('a', { hasText: 'Open the console' }).click();
      await page.waitForURL(`${server.origin}/`);
      expect(page.errors).toEqual([]);
    });
  });
});
