import { RagdeskError } from '../../src/errors.js';
import { inTransaction, type SqliteDatabase } from './database.js';

/**
 * Readable conversations: the channel a conversation started on, a reader's feedback on a
 * message (value, comment, time; NULL when unmarked), indexes for an agent's conversations
 * newest activity first (all, and one visitor's), and a partial one holding only marked messages
 * for the feedback filter.
 */
const CONVERSATION_READING = `
  ALTER TABLE conversations ADD COLUMN channel TEXT;
  ALTER TABLE messages ADD COLUMN feedback TEXT;
  ALTER TABLE messages ADD COLUMN feedback_comment TEXT;
  ALTER TABLE messages ADD COLUMN feedback_at TEXT;
  CREATE INDEX conversations_activity ON conversations (agent_id, updated_at DESC, id DESC);
  CREATE INDEX conversations_visitor ON conversations (agent_id, visitor_id, updated_at DESC, id DESC);
  CREATE INDEX messages_feedback ON messages (conversation_id, feedback) WHERE feedback IS NOT NULL;
  `;

/**
 * Names callers choose stop being global, so another owner's use neither blocks nor reveals one.
 * Handles: unique within an owner (owner-less agents count as one owner); a public agent's handle
 * is also its address for visitors, so no two public agents share one. Conversation ids: unique
 * within their agent, so conversations are keyed by (agent_id, id) and messages name both (the
 * tables are rebuilt: SQLite cannot change a column's UNIQUE or a foreign key in place; every pk
 * is kept). Existing handles and conversation ids were unique across all agents, so the new keys
 * hold for them as they are.
 */
/** API keys may end at a time given at creation (null: never). */
const API_KEY_EXPIRY = `
  ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
`;

const PER_OWNER_NAMES = `
  DROP INDEX IF EXISTS agents_handle;
  CREATE UNIQUE INDEX agents_owner_handle ON agents (coalesce(owner_id, ''), handle) WHERE handle IS NOT NULL;
  CREATE UNIQUE INDEX agents_public_handle ON agents (handle) WHERE handle IS NOT NULL AND visibility = 'public';

  CREATE TABLE conversations_per_agent (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    visitor_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    contact TEXT,
    channel TEXT,
    UNIQUE (agent_id, id)
  );
  INSERT INTO conversations_per_agent (pk, id, agent_id, visitor_id, created_at, updated_at, contact, channel)
    SELECT pk, id, agent_id, visitor_id, created_at, updated_at, contact, channel FROM conversations;
  CREATE TABLE messages_per_agent (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    sources TEXT NOT NULL,
    usage TEXT,
    model TEXT,
    visitor_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    feedback TEXT,
    feedback_comment TEXT,
    feedback_at TEXT,
    FOREIGN KEY (agent_id, conversation_id) REFERENCES conversations_per_agent (agent_id, id) ON DELETE CASCADE
  );
  INSERT INTO messages_per_agent
    (pk, id, agent_id, conversation_id, role, text, sources, usage, model, visitor_id, created_at, feedback, feedback_comment, feedback_at)
    SELECT m.pk, m.id, c.agent_id, m.conversation_id, m.role, m.text, m.sources, m.usage, m.model, m.visitor_id, m.created_at,
      m.feedback, m.feedback_comment, m.feedback_at
    FROM messages m JOIN conversations c ON c.id = m.conversation_id;
  -- Children first: dropping conversations while the old messages still pointed at it would cascade.
  DROP TABLE messages;
  DROP TABLE conversations;
  ALTER TABLE conversations_per_agent RENAME TO conversations;
  ALTER TABLE messages_per_agent RENAME TO messages;
  CREATE INDEX conversations_agent ON conversations (agent_id, created_at);
  CREATE INDEX conversations_activity ON conversations (agent_id, updated_at DESC, id DESC);
  CREATE INDEX conversations_visitor ON conversations (agent_id, visitor_id, updated_at DESC, id DESC);
  -- A conversation named by its id alone (a reader without the agent) is looked up across agents.
  CREATE INDEX conversations_id ON conversations (id);
  CREATE INDEX messages_conversation ON messages (agent_id, conversation_id, created_at, pk);
  CREATE INDEX messages_feedback ON messages (agent_id, conversation_id, feedback) WHERE feedback IS NOT NULL;
`;

/**
 * Crawls of web datasources: the running or last crawl's counts (one JSON text per datasource) and
 * one row per URL looked at, with the validators (ETag, Last-Modified) the next crawl sends back.
 */
const CRAWLS = `
  CREATE TABLE crawl_states (
    datasource_id TEXT PRIMARY KEY REFERENCES datasources (id) ON DELETE CASCADE,
    state TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE crawl_pages (
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    error TEXT,
    page_id TEXT,
    etag TEXT,
    last_modified TEXT,
    content_hash TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (datasource_id, url)
  ) WITHOUT ROWID;
`;

/** When each crawled page was last requested, so a sitemap's `<lastmod>` can spare the request. */
const CRAWL_FETCHED_AT = `
  ALTER TABLE crawl_pages ADD COLUMN fetched_at TEXT;
`;

/**
 * Schema migrations, applied in order. The applied version lives in `PRAGMA user_version`, which
 * is part of the database header and therefore changes in the same transaction as the DDL: a
 * crash mid-migration leaves the previous version, never half a schema. Never edit a shipped
 * migration; append a new one.
 */
const MIGRATIONS: readonly string[] = [
  // 1: datastores, datasources, chunks and their full-text index.
  `
  CREATE TABLE datastores (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    embedding_model TEXT NOT NULL,
    embedding_dimensions INTEGER NOT NULL,
    chunk_sequence INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE datasources (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    datastore_id TEXT NOT NULL REFERENCES datastores (id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    group_id TEXT,
    custom_id TEXT,
    config TEXT NOT NULL,
    metadata TEXT NOT NULL,
    error TEXT,
    content_hash TEXT,
    nb_chunks INTEGER NOT NULL,
    nb_tokens INTEGER NOT NULL,
    text_size INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_synch TEXT
  );
  CREATE INDEX datasources_datastore ON datasources (datastore_id, created_at);
  CREATE INDEX datasources_group ON datasources (group_id) WHERE group_id IS NOT NULL;

  -- Small columns first: lookups that only need ids and filters then stay on the row's first page.
  CREATE TABLE chunks (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    datastore_id TEXT NOT NULL,
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    custom_id TEXT,
    position INTEGER NOT NULL,
    token_count INTEGER NOT NULL,
    char_offset INTEGER NOT NULL,
    page_number INTEGER,
    hash TEXT NOT NULL,
    metadata TEXT NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL
  );
  CREATE INDEX chunks_datasource ON chunks (datasource_id, position);
  -- Serves embedding reuse by hash, counts, and keyset iteration over (hash, pk) of a datastore.
  CREATE INDEX chunks_datastore_hash ON chunks (datastore_id, hash);
  -- Narrow copy of what search filters read, so checking a full-text hit against the datastore
  -- and the filter does not load the chunk row (text + vector): 3-5x faster bm25 queries.
  CREATE INDEX chunks_scope ON chunks (pk, datastore_id, datasource_id, custom_id);

  -- External content: the text is stored once (in chunks); the index holds postings only.
  CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    text,
    content = 'chunks',
    content_rowid = 'pk',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  -- Document frequency per indexed term, to keep only a query's rarest terms.
  CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab (chunks_fts, 'row');

  -- Triggers keep the index in step inside the caller's transaction, cascades included.
  CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, text) VALUES (new.pk, new.text);
  END;
  CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
  END;
  CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks WHEN old.text IS NOT new.text BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
    INSERT INTO chunks_fts (rowid, text) VALUES (new.pk, new.text);
  END;
  `,
  // 2: what the datasource pipeline persists: status history, uploaded files, sync jobs. All
  // cascade from their datasource, so deleting a datasource or datastore takes them along.
  `
  CREATE TABLE status_events (
    pk INTEGER PRIMARY KEY,
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    from_status TEXT,
    to_status TEXT NOT NULL,
    at TEXT NOT NULL,
    message TEXT
  );
  CREATE INDEX status_events_datasource ON status_events (datasource_id, pk);

  CREATE TABLE datasource_files (
    datasource_id TEXT PRIMARY KEY REFERENCES datasources (id) ON DELETE CASCADE,
    mime_type TEXT NOT NULL,
    file_name TEXT,
    bytes BLOB NOT NULL
  );

  CREATE TABLE jobs (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    datastore_id TEXT NOT NULL,
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    run_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_until TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX jobs_datasource ON jobs (datasource_id, created_at);
  -- Claims scan the few pending / running jobs, not the done ones that pile up.
  CREATE INDEX jobs_open ON jobs (created_at) WHERE status IN ('pending', 'running');
  `,
  // 3: bulk deletes. Removing a chunk from the index re-tokenizes its text (~0.2 ms), so deleting
  // a 100k-chunk datastore row by row held the write lock for 17 s. With bulk = 1 the trigger
  // stands aside and the caller rebuilds the index from the rows that remain, in the same
  // transaction. Written to tolerate re-running (IF [NOT] EXISTS).
  `
  CREATE TABLE IF NOT EXISTS fts_control (bulk INTEGER NOT NULL);
  INSERT INTO fts_control (bulk) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM fts_control);
  DROP TRIGGER IF EXISTS chunks_fts_delete;
  CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks WHEN (SELECT bulk FROM fts_control) = 0 BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
  END;
  `,
  // 4: owners, agents, conversations, messages, API keys, usage counters. Datastores that predate
  // owners get owner_id NULL (single-tenant). Conversations cascade from their agent and messages
  // from their conversation, so deleting an agent is one statement. Arrays and objects (sources,
  // usage, scopes, datastore ids) are JSON text: they are read whole, never queried into.
  `
  ALTER TABLE datastores ADD COLUMN owner_id TEXT;
  CREATE INDEX datastores_owner ON datastores (owner_id, created_at) WHERE owner_id IS NOT NULL;

  CREATE TABLE agents (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    owner_id TEXT,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    model_name TEXT NOT NULL,
    temperature REAL NOT NULL,
    visibility TEXT NOT NULL,
    system_prompt TEXT,
    user_prompt TEXT,
    prompt_type TEXT,
    prompt_template TEXT,
    datastore_ids TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX agents_owner ON agents (owner_id, created_at);

  CREATE TABLE conversations (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    visitor_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX conversations_agent ON conversations (agent_id, created_at);

  -- pk is the insertion order: it breaks ties between messages written at the same instant.
  CREATE TABLE messages (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    sources TEXT NOT NULL,
    usage TEXT,
    model TEXT,
    visitor_id TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX messages_conversation ON messages (conversation_id, created_at, pk);

  CREATE TABLE api_keys (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    owner_id TEXT NOT NULL,
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    scopes TEXT NOT NULL,
    datastore_ids TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_owner ON api_keys (owner_id, created_at);

  -- REAL: amounts may be fractional (costs). One row per (subject, metric, period).
  CREATE TABLE usage_counters (
    subject TEXT NOT NULL,
    metric TEXT NOT NULL,
    period TEXT NOT NULL,
    used REAL NOT NULL,
    PRIMARY KEY (subject, metric, period)
  ) WITHOUT ROWID;
  `,
  // 5: lexical search moved to an in-memory bm25 index built from the chunk rows
  // (adapters/bm25/lexical-index.ts). FTS5 was 75-85% of every replaceChunks call (tokenizing on insert,
  // segment merges) and its bm25() too slow at 100k chunks, so its table, vocabulary view,
  // triggers and bulk-delete switch go. The index is saved on close as one snapshot per
  // datastore, valid for the chunk sequence it was taken at (adapters/bm25/lexical-snapshot.ts).
  `
  CREATE TABLE lexical_snapshots (
    datastore_id TEXT PRIMARY KEY REFERENCES datastores (id) ON DELETE CASCADE,
    chunk_sequence INTEGER NOT NULL,
    data BLOB NOT NULL
  );
  DROP TRIGGER IF EXISTS chunks_fts_insert;
  DROP TRIGGER IF EXISTS chunks_fts_delete;
  DROP TRIGGER IF EXISTS chunks_fts_update;
  DROP TABLE IF EXISTS chunks_fts_vocab;
  DROP TABLE IF EXISTS chunks_fts;
  DROP TABLE IF EXISTS fts_control;
  `,
  // 6: the query settings an agent lets visitors change (JSON array of field names; none by default).
  `
  ALTER TABLE agents ADD COLUMN allow_overrides TEXT NOT NULL DEFAULT '[]';
  `,
  // 7: agent settings of the reference service (JSON, read whole), the unique `@handle`, and the
  // contact a chat client gave with a conversation's first message (JSON).
  `
  ALTER TABLE agents ADD COLUMN handle TEXT;
  ALTER TABLE agents ADD COLUMN settings TEXT;
  CREATE UNIQUE INDEX agents_handle ON agents (handle) WHERE handle IS NOT NULL;
  ALTER TABLE conversations ADD COLUMN contact TEXT;
  `,
  // 8: the start-up check for interrupted work reads a datastore's pending and running datasources;
  // without an index it read every datasource row (~2 s at 100k one-chunk documents). Partial, so
  // it only holds the few unsettled rows. Written to tolerate re-running (IF NOT EXISTS).
  `
  CREATE INDEX IF NOT EXISTS datasources_unsettled ON datasources (datastore_id, created_at)
    WHERE status IN ('pending', 'running');
  `,
  // 9: uploads stored in parts of 1 MiB, each written and read in a short transaction of its own
  // (stored-files.ts), so a 50 MB upload never holds the event loop for the whole copy. A file row
  // names the generation of its parts; `bytes` stays empty for them. Rows written before keep their
  // bytes in `bytes` with generation NULL.
  `
  CREATE TABLE datasource_file_parts (
    pk INTEGER PRIMARY KEY,
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    generation INTEGER NOT NULL,
    part INTEGER NOT NULL,
    bytes BLOB NOT NULL
  );
  CREATE UNIQUE INDEX datasource_file_parts_key ON datasource_file_parts (datasource_id, generation, part);
  ALTER TABLE datasource_files ADD COLUMN generation INTEGER;
  ALTER TABLE datasource_files ADD COLUMN byte_length INTEGER;
  `,
  // 10: a big document's chunks are written in slices under a new `generation` before one short
  // transaction makes them the datasource's set (chunk-slices.ts). A datasource's rows of the
  // generations listed in hidden_chunk_sets (being written, or replaced and not yet deleted) are
  // invisible to reads. The same chunk id may then exist in two generations, so `id` alone is no
  // longer unique: the table is rebuilt (SQLite cannot drop a column's UNIQUE), keeping every pk.
  `
  CREATE TABLE chunks_rebuilt (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    datastore_id TEXT NOT NULL,
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    custom_id TEXT,
    position INTEGER NOT NULL,
    token_count INTEGER NOT NULL,
    char_offset INTEGER NOT NULL,
    page_number INTEGER,
    hash TEXT NOT NULL,
    metadata TEXT NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO chunks_rebuilt (pk, id, datastore_id, datasource_id, custom_id, position, token_count, char_offset,
    page_number, hash, metadata, text, vector)
  SELECT pk, id, datastore_id, datasource_id, custom_id, position, token_count, char_offset,
    page_number, hash, metadata, text, vector FROM chunks;
  DROP TABLE chunks;
  ALTER TABLE chunks_rebuilt RENAME TO chunks;
  CREATE UNIQUE INDEX chunks_id ON chunks (id, generation);
  CREATE INDEX chunks_datasource ON chunks (datasource_id, generation, position);
  CREATE INDEX chunks_datastore_hash ON chunks (datastore_id, hash);
  CREATE INDEX chunks_scope ON chunks (pk, datastore_id, datasource_id, custom_id);
  ALTER TABLE datasources ADD COLUMN chunk_generation INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE hidden_chunk_sets (
    datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
    generation INTEGER NOT NULL,
    PRIMARY KEY (datasource_id, generation)
  ) WITHOUT ROWID;
  `,
  // Upload links: files chat visitors attach to a message, kept for a day (upload-queries.ts).
  `
  CREATE TABLE uploads (
    id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    owner_id TEXT,
    agent_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    visitor_id TEXT,
    file_name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    max_bytes INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    upload_before TEXT NOT NULL,
    keep_until TEXT NOT NULL,
    uploaded_at TEXT,
    size INTEGER,
    bytes BLOB
  );
  CREATE INDEX uploads_keep_until ON uploads (keep_until);
  `,
  CONVERSATION_READING,
  PER_OWNER_NAMES,
  API_KEY_EXPIRY,
  CRAWLS,
  CRAWL_FETCHED_AT,
];

/** The version that added crawl states and pages (a test opens a file of the one before). */
export const CRAWLS_VERSION = MIGRATIONS.indexOf(CRAWLS) + 1;

/** The version that added `crawl_pages.fetched_at` (a test opens a file of the one before). */
export const CRAWL_FETCHED_AT_VERSION = MIGRATIONS.indexOf(CRAWL_FETCHED_AT) + 1;

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The version that made handles and conversation ids per owner (tests build a file of the one before). */
export const PER_OWNER_NAMES_VERSION = MIGRATIONS.indexOf(PER_OWNER_NAMES) + 1;

/** The version that let API keys expire (a test builds a file of the one before). */
export const API_KEY_EXPIRY_VERSION = MIGRATIONS.indexOf(API_KEY_EXPIRY) + 1;

/** The version that made conversations readable (a test builds a file of the one before). */
export const CONVERSATION_READING_VERSION = MIGRATIONS.indexOf(CONVERSATION_READING) + 1;

/** Reads `PRAGMA user_version`. */
function schemaVersion(db: SqliteDatabase): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number } | undefined;
  return row?.user_version ?? 0;
}

/**
 * Brings the schema up to {@link SCHEMA_VERSION} (`target` stops earlier: migration tests build an
 * older file with it); a no-op when it is current. Each migration runs
 * in its own write transaction and the version is re-read inside it, so two processes opening the
 * same new file do not both apply it.
 */
export function migrate(db: SqliteDatabase, target = SCHEMA_VERSION): void {
  if (schemaVersion(db) === target) return;
  for (let version = 1; version <= target; version += 1) {
    inTransaction(db, () => {
      const current = schemaVersion(db);
      if (current > SCHEMA_VERSION) throw newerSchema(current);
      if (current >= version) return;
      db.exec(MIGRATIONS[version - 1] ?? '');
      db.exec(`PRAGMA user_version = ${version}`);
    });
  }
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) throw newerSchema(current);
}

function newerSchema(version: number): RagdeskError {
  return new RagdeskError(
    'invalid_adapter',
    `the SQLite database has schema version ${version}, newer than this ragdesk supports (${SCHEMA_VERSION}); upgrade ragdesk`,
    { details: { schemaVersion: version, supportedVersion: SCHEMA_VERSION } },
  );
}
