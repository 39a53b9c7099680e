import { afterAll, beforeAll } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { openaiEmbeddings } from '../../adapters/openai/index.js';
import { describeEmbeddingsConformance } from '../../src/testing/embeddings-conformance.js';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';

let server: OpenAIServer;

beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(async () => {
  await server.close();
});

describeEmbeddingsConformance('openai (local OpenAI-compatible server)', {
  create: () => openaiEmbeddings({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 }),
  cleanup: () => server.reset(),
});

describeEmbeddingsConformance('openai, shortened text-embedding-3 vectors', {
  create: () => openaiEmbeddings({ apiKey: 'test-key', baseURL: server.baseURL, dimensions: 256, maxBatchSize: 32 }),
  cleanup: () => server.reset(),
});

describeEmbeddingsConformance('local (offline hashed features)', {
  create: () => localEmbeddings(),
});
