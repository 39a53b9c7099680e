import { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../adapters/http/index.js';
import { RagdeskRetriever } from '../../../adapters/langchain/index.js';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../../adapters/memory/index.js';
import { createRagdesk, RagdeskError, type Datastore, type Ragdesk } from '../../../src/index.js';
import { DOCUMENTS } from '../../http/fixture.js';
import { startServer, type RunningServer } from '../../http/servers.js';

/**
 * A retrieval chain as LangChain users write it: retriever -> documents joined into the prompt ->
 * chat model -> string. FakeChatModel (LangChain's own testing model) answers with the prompt it
 * got, so the answer shows what the retriever put into it.
 */
function ragChain(retriever: RagdeskRetriever) {
  const prompt = ChatPromptTemplate.fromMessages([['human', 'Context:\n{context}\n\nQuestion: {question}']]);
  const joinDocuments = (documents: Document[]) => documents.map((document) => document.pageContent).join('\n---\n');
  return RunnableSequence.from([
    { context: retriever.pipe(joinDocuments), question: new RunnablePassthrough() },
    prompt,
    new FakeChatModel({}),
    new StringOutputParser(),
  ]);
}

describe('RagdeskRetriever in a LangChain chain', () => {
  let ragdesk: Ragdesk;
  let datastore: Datastore;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    ragdesk = createRagdesk({ ...memoryStores(), index: exactIndex(), embeddings: localEmbeddings() });
    datastore = await ragdesk.datastores.create({ name: 'Facts' }, { ownerId: 'owner' });
    await datastore.upsert(DOCUMENTS.map((document) => ({ ...document, metadata: { topic: document.name.split('.')[0]! } })));
    key = (await ragdesk.keys.create({ ownerId: 'owner', name: 'query', scopes: ['query'] })).key;
    server = await startServer('node:http', createHttpHandler(ragdesk));
  });
  afterAll(async () => {
    await server?.close();
    await ragdesk?.close();
  });

  it('in process: the chain answers from the retrieved fragments, each a Document with ragdesk metadata', async () => {
    const retriever = new RagdeskRetriever({ datastore, topK: 1 });
    const documents = await retriever.invoke('What causes tides?');
    expect(documents).toHaveLength(1);
    expect(documents[0]!.pageContent).toContain('gravitational pull of the moon');
    expect(documents[0]!.metadata).toMatchObject({ datasource_name: 'tides.md', topic: 'tides', page_number: null });
    expect(documents[0]!.metadata.score).toBeGreaterThan(0);
    expect(documents[0]!.id).toBe(documents[0]!.metadata.chunk_id);

    const answer = await ragChain(retriever).invoke('What causes tides?');
    expect(answer).toContain('Question: What causes tides?');
    expect(answer).toContain('gravitational pull of the moon');
    expect(answer).not.toContain('magma');
  });

  it('over HTTP: the same documents from the API, and its errors thrown as RagdeskErrors', async () => {
    const http = { url: `${server.origin}/api`, datastoreId: datastore.id, apiKey: key };
    const overHttp = await new RagdeskRetriever({ http, topK: 2 }).invoke('Why does a volcano erupt?');
    const inProcess = await new RagdeskRetriever({ datastore, topK: 2 }).invoke('Why does a volcano erupt?');
    expect(overHttp.map((document) => [document.pageContent, document.metadata.chunk_id])).toEqual(
      inProcess.map((document) => [document.pageContent, document.metadata.chunk_id]),
    );
    const answer = await ragChain(new RagdeskRetriever({ http, topK: 1 })).invoke('Why does a volcano erupt?');
    expect(answer).toContain('magma from the mantle');

    const unknown = await new RagdeskRetriever({ http: { ...http, datastoreId: 'nope' } }).invoke('x').catch((error: unknown) => error);
    expect(RagdeskError.isInstance(unknown) && unknown.code).toBe('not_found');
    const badKey = await new RagdeskRetriever({ http: { ...http, apiKey: 'rdk_wrong_wrong_wrong' } })
      .invoke('x')
      .catch((error: unknown) => error);
    expect(RagdeskError.isInstance(badKey) && badKey.status).toBe(401);
  });
});
