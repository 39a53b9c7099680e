/**
 * Small record builders for tests and conformance suites. Deterministic: the same arguments always
 * give the same records, and equal texts always get equal hashes and vectors (as a real embedder
 * would), so suites can check embedding reuse by hash.
 */
import { createHash } from 'node:crypto';
import type { ChunkRecord, DatasourceRecord, DatastoreRecord, JobRecord } from '../ports/records.js';
import type { AgentRecord, ApiKeyRecord, ConversationRecord, MessageRecord } from '../ports/agent-key-usage-records.js';
import { seededRandom } from './random.js';

/** Timestamp `seconds` after a fixed epoch, so `createdAt` ordering is under the test's control. */
export function isoAt(seconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();
}

/** A datastore record; `id` defaults to `ds-<name>`. */
export function makeDatastore(overrides: Partial<DatastoreRecord> = {}): DatastoreRecord {
  const name = overrides.name ?? 'Handbook';
  return {
    id: `ds-${slug(name)}`,
    ownerId: null,
    name,
    description: `Chunks of the ${name}`,
    embeddingModel: 'test-embedding-8',
    embeddingDimensions: 8,
    createdAt: isoAt(0),
    updatedAt: isoAt(0),
    ...overrides,
  };
}

/** A synched `text` datasource of `datastore`; `id` defaults to `src-<name>`. */
export function makeDatasource(
  datastore: Pick<DatastoreRecord, 'id'> | string,
  overrides: Partial<DatasourceRecord> = {},
): DatasourceRecord {
  const datastoreId = typeof datastore === 'string' ? datastore : datastore.id;
  const name = overrides.name ?? 'notes.txt';
  return {
    id: `src-${slug(name)}`,
    datastoreId,
    type: 'text',
    name,
    status: 'synched',
    groupId: null,
    customId: null,
    config: {},
    metadata: { source: name },
    error: null,
    contentHash: null,
    nbChunks: 0,
    nbTokens: 0,
    textSize: 0,
    createdAt: isoAt(0),
    updatedAt: isoAt(0),
    lastSynch: null,
    ...overrides,
  };
}

/** A pending sync job of `source`, created at `isoAt(seconds)` and due then. */
export function makeJob(
  source: Pick<DatasourceRecord, 'id' | 'datastoreId'>,
  seconds: number,
  overrides: Partial<JobRecord> = {},
): JobRecord {
  return {
    id: `job-${source.id}-${seconds}`,
    kind: 'sync',
    datastoreId: source.datastoreId,
    datasourceId: source.id,
    status: 'pending',
    attempts: 0,
    runAt: isoAt(seconds),
    leaseOwner: null,
    leaseUntil: null,
    lastError: null,
    createdAt: isoAt(seconds),
    updatedAt: isoAt(seconds),
    ...overrides,
  };
}

/** An agent over `datastoreIds`; `id` defaults to `agent-<name>`. */
export function makeAgent(overrides: Partial<AgentRecord> = {}): AgentRecord {
  const name = overrides.name ?? 'Helper';
  return {
    id: `agent-${slug(name)}`,
    ownerId: null,
    name,
    description: `The ${name} agent`,
    modelName: 'gpt_3_5_turbo',
    temperature: 0.2,
    visibility: 'private',
    systemPrompt: null,
    userPrompt: null,
    promptType: null,
    promptTemplate: null,
    allowOverrides: [],
    datastoreIds: [],
    handle: null,
    settings: {},
    createdAt: isoAt(0),
    updatedAt: isoAt(0),
    ...overrides,
  };
}

/** A conversation of `agent` started at `isoAt(seconds)`; `id` defaults to `conv-<agent>-<seconds>`. */
export function makeConversation(
  agent: Pick<AgentRecord, 'id'>,
  seconds: number,
  overrides: Partial<ConversationRecord> = {},
): ConversationRecord {
  return {
    id: `conv-${agent.id}-${seconds}`,
    agentId: agent.id,
    visitorId: 'visitor-1',
    createdAt: isoAt(seconds),
    updatedAt: isoAt(seconds),
    ...overrides,
  };
}

/**
 * A message of `conversation` written at `isoAt(seconds)`; `id` defaults to
 * `msg-<conversation>-<seconds>-<role>`. Assistant messages get a source and a usage.
 */
export function makeMessage(
  conversation: Pick<ConversationRecord, 'id' | 'visitorId'>,
  seconds: number,
  role: MessageRecord['role'],
  overrides: Partial<MessageRecord> = {},
): MessageRecord {
  const assistant = role === 'assistant';
  return {
    id: `msg-${conversation.id}-${seconds}-${role}`,
    conversationId: conversation.id,
    role,
    text: assistant ? `Answer at ${seconds}s.` : `Question at ${seconds}s?`,
    sources: assistant
      ? [
          {
            chunk_id: 'chunk-1',
            datasource_id: 'src-1',
            datasource_name: 'notes.txt',
            datasource_type: 'text',
            source_url: null,
            custom_id: null,
            mime_type: 'text/plain',
            page_number: 2,
            total_pages: null,
            score: 0.75,
            text: 'The excerpt.',
            passages: [
              { chunk_id: 'chunk-1', page_number: 2, text: 'The excerpt.', score: 0.75 },
              { chunk_id: 'chunk-4', page_number: 3, text: 'A second excerpt of the same file.', score: 0.5 },
            ],
          },
        ]
      : [],
    usage: assistant ? { promptTokens: 120, completionTokens: 30, totalTokens: 150, cost: 0.000225 } : null,
    model: assistant ? 'offline/extractive' : null,
    visitorId: conversation.visitorId,
    createdAt: isoAt(seconds),
    feedback: null,
    ...overrides,
  };
}

/** An API key record of `ownerId`; the hash is the sha256 of `secret-<name>`. */
export function makeApiKey(ownerId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const name = overrides.name ?? 'default';
  const secret = `secret-${ownerId}-${name}`;
  return {
    id: `key-${slug(ownerId)}-${slug(name)}`,
    ownerId,
    name,
    hash: contentHash(secret),
    prefix: secret.slice(0, 10),
    scopes: ['read', 'query'],
    datastoreIds: null,
    createdAt: isoAt(0),
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

/** Options of {@link makeChunk}. */
export interface MakeChunkOptions extends Partial<Omit<ChunkRecord, 'vector'>> {
  /** Vector length when `vector` is not given (default 8). */
  dimensions?: number;
  vector?: Float32Array;
}

/**
 * A chunk of `datasource` at `position`. Its hash is the sha256 of the text; its vector is derived
 * from the text (same text, same vector); its id from datasource, position and text, the way an
 * ingest pipeline derives ids from content.
 */
export function makeChunk(
  datasource: Pick<DatasourceRecord, 'id' | 'datastoreId' | 'customId'>,
  position: number,
  text: string,
  options: MakeChunkOptions = {},
): ChunkRecord {
  const { dimensions = 8, vector, ...overrides } = options;
  const hash = contentHash(text);
  return {
    id: `${datasource.id}#${position}-${hash.slice(0, 12)}`,
    datastoreId: datasource.datastoreId,
    datasourceId: datasource.id,
    customId: datasource.customId,
    position,
    text,
    tokenCount: text.split(/\s+/).filter(Boolean).length,
    charOffset: position * 1000,
    hash,
    pageNumber: null,
    metadata: { source: datasource.id },
    vector: vector ?? textVector(text, dimensions),
    ...overrides,
  };
}

/** One chunk per text, positions 0..n-1. */
export function makeChunks(
  datasource: Pick<DatasourceRecord, 'id' | 'datastoreId' | 'customId'>,
  texts: readonly string[],
  options: Omit<MakeChunkOptions, 'id' | 'position' | 'text' | 'hash'> = {},
): ChunkRecord[] {
  return texts.map((text, position) => makeChunk(datasource, position, text, options));
}

/** Hex sha256 of the text: what `ChunkRecord.hash` holds in these fixtures. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A unit vector seeded by the text: stands in for an embedding. */
export function textVector(text: string, dimensions: number): Float32Array {
  const random = seededRandom(Number.parseInt(contentHash(text).slice(0, 8), 16));
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const value = random() * 2 - 1;
    vector[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 1;
  for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] ?? 0) * scale;
  return vector;
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'x'
  );
}
