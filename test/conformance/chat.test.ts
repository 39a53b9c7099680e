import { afterAll, beforeAll } from 'vitest';
import { localAnswerer } from '../../adapters/local/index.js';
import { openaiChat } from '../../adapters/openai/index.js';
import { describeChatModelConformance } from '../../src/testing/chat-model-conformance.js';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';

let server: OpenAIServer;

beforeAll(async () => {
  // A long answer streamed slowly, so an abort always lands while the server is still writing.
  server = await startOpenAIServer({
    reply: (body) =>
      `Jupiter has the largest moons. ${'Ganymede, Callisto, Io and Europa orbit it. '.repeat(8)}(${body.messages.length} messages)`,
    interTokenDelayMs: 2,
  });
});
afterAll(async () => {
  await server.close();
});

describeChatModelConformance('openai (local OpenAI-compatible server)', {
  create: () => openaiChat({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 }),
  deterministic: true,
  honoursMaxTokens: true,
  upstreamStopped: async () => {
    await server.nextDisconnect();
  },
  cleanup: () => server.reset(),
});

// The offline answerer reads the passages from `grounding`, not from the prompt.
describeChatModelConformance('local extractive answerer', {
  create: () => localAnswerer(),
  deterministic: true,
  grounding: {
    query: 'Which planet has the largest moons?',
    passages: [
      { number: 1, label: 'moons.md', text: 'Jupiter has the largest moons of the solar system. Ganymede is the largest moon of Jupiter.' },
      { number: 2, label: 'rings.md', text: 'Saturn is known for its rings. Its largest moon is Titan.' },
    ],
  },
});
