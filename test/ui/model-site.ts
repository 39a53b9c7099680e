import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';
import { openRagdesk, type OpenedRagdesk } from '../../adapters/node.js';
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from '../../fixtures/openai-server.js';
import { closeServers, listenLocal } from '../helpers/http-server.js';
import { tempDir } from '../helpers/setups.js';
import { launchBrowser, type Browser } from './browser.js';

/**
 * What most browser tests stand on: a local OpenAI-compatible model, ragdesk over a temporary
 * data folder answering through it, the sites the test serves on 127.0.0.1 (the API, pages that
 * embed the widget) and Chromium, closed together by `close`.
 */
export interface ModelSite {
  model: OpenAIServer;
  ragdesk: OpenedRagdesk;
  /** Serves `listener` on 127.0.0.1 until `close`; answers its origin. */
  serve(listener: RequestListener): Promise<string>;
  /** Chromium, launched on the first call. */
  browser(): Promise<Browser>;
  close(): Promise<void>;
}

export async function openModelSite(prefix: string, model: OpenAIServerOptions): Promise<ModelSite> {
  const temp = tempDir(prefix);
  const started = await startOpenAIServer(model);
  const ragdesk = openRagdesk({ dataDir: join(temp.dir, 'data'), env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: started.baseURL } });
  const servers: Server[] = [];
  let browser: Browser | undefined;
  return {
    model: started,
    ragdesk,
    serve: (listener) => {
      const server = createServer(listener);
      servers.push(server);
      return listenLocal(server);
    },
    browser: async () => (browser ??= await launchBrowser()),
    close: async () => {
      await browser?.close();
      await closeServers(servers);
      await ragdesk.close();
      await started.close();
      temp.remove();
    },
  };
}
