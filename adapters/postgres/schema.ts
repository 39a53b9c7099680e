import type pg from 'pg';
import { RagdeskError } from '../../src/errors.js';
import { inTransaction, quoteIdentifier, selectRow } from './connection.js';

/**
 * Versioned migrations of the store's tables, inside one Postgres schema (default `ragdesk`).
 * Each runs in a transaction (Postgres DDL is transactional) together with the row recording its
 * version, under an advisory lock, so several instances starting at once apply it exactly once.
 * Never edit a shipped migration; append a new one.
 *
 * Choices (docs/decisions/016-postgres-vectors-in-the-store.md):
 * - Timestamps stay ISO-8601 `text` with the "C" collation: records round-trip exactly and compare
 *   byte-wise, as in SQLite (lease expiry, oldest-first ordering).
 * - JSON fields are `text`, not `jsonb`: jsonb refuses `\u0000` and lone surrogates that a JSON
 *   string may legally carry, and reorders keys.
 * - Chunk vectors are `real[]`: exact float4 round trip and no pgvector dependency for the store.
 *   The vector index casts them to `vector(n)` in a per-datastore partial HNSW index.
 * - `tsv` is generated from `text` with the `english` configuration (stemming like SQLite's porter
 *   tokenizer) and indexed with GIN.
 */
/** Han, kana, Hangul (with their radicals, iteration marks and half-width forms), and the rest of Han past U+FFFF. */
const CJK_RANGES =
  '\\u1100-\\u11ff\\u2e80-\\u2fdf\\u3005-\\u3007\\u3021-\\u3029\\u3031-\\u3035\\u3040-\\u30ff\\u3130-\\u318f' +
  '\\u31f0-\\u31ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\ua960-\\ua97f\\uac00-\\ud7ff\\uf900-\\ufaff\\uff66-\\uff9f' +
  '\\U00020000-\\U0003134f';
/** Thai, Lao, Myanmar, Khmer. */
const PAIRED_RANGES = '\\u0e00-\\u0eff\\u1000-\\u109f\\u1780-\\u17ff';
const UNSPACED_RANGES = CJK_RANGES + PAIRED_RANGES;

/**
 * Metadata filters. JSON fields are text (see above): metadata that jsonb refuses (an escaped
 * U+0000 or lone surrogate) reads as {} here, so no write can fail on the index.
 */
const metadataFilters = (s: string) => `
  CREATE FUNCTION ${s}.metadata_document(metadata text) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $fn$ SELECT CASE WHEN metadata ~ '\\\\u(0000|[dD][89a-fA-F])' THEN '{}'::jsonb ELSE metadata::jsonb END $fn$;
  CREATE INDEX datasources_metadata ON ${s}.datasources USING gin (${s}.metadata_document(metadata));
  `;

/**
 * bm25 over every script: runs of scripts written without spaces also indexed as characters and
 * pairs (Thai, Lao, Khmer, Myanmar: pairs), as src/text/unspaced-scripts.ts splits them in the
 * other stores and in queries. Code point ranges stand in for Unicode script properties.
 */
const unspacedScripts = (s: string) => `
  CREATE FUNCTION ${s}.unspaced_terms(body text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
  DECLARE
    run text;
    characters text[];
    n integer;
    paired boolean;
    terms text := '';
  BEGIN
    IF body !~ '[${UNSPACED_RANGES}]' THEN RETURN ''; END IF;
    FOR run IN SELECT (regexp_matches(lower(body), '[${CJK_RANGES}]+|[${PAIRED_RANGES}]+', 'g'))[1] LOOP
      characters := regexp_split_to_array(run, '');
      n := array_length(characters, 1);
      paired := run ~ '^[${PAIRED_RANGES}]';
      IF paired AND n = 1 THEN
        terms := terms || ' ' || run;
        CONTINUE;
      END IF;
      FOR i IN 1..n LOOP
        IF NOT paired THEN terms := terms || ' ' || characters[i]; END IF;
        IF i < n THEN terms := terms || ' ' || characters[i] || characters[i + 1]; END IF;
      END LOOP;
    END LOOP;
    RETURN terms;
  END $fn$;
  ALTER TABLE ${s}.chunks DROP COLUMN tsv;
  ALTER TABLE ${s}.chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS
    (to_tsvector('english'::regconfig, text) || to_tsvector('simple'::regconfig, ${s}.unspaced_terms(text))) STORED;
  CREATE INDEX chunks_text ON ${s}.chunks USING gin (tsv) WITH (fastupdate = off);
  `;

/**
 * Readable conversations: the channel a conversation started on, a reader's feedback on a
 * message (NULL when unmarked), indexes for an agent's conversations newest activity first (all,
 * and one visitor's) and a partial one holding only marked messages for the feedback filter.
 */
const conversationReading = (s: string) => `
  ALTER TABLE ${s}.conversations ADD COLUMN channel text;
  ALTER TABLE ${s}.messages ADD COLUMN feedback text;
  ALTER TABLE ${s}.messages ADD COLUMN feedback_comment text;
  ALTER TABLE ${s}.messages ADD COLUMN feedback_at text COLLATE "C";
  CREATE INDEX conversations_activity ON ${s}.conversations (agent_id, updated_at DESC, id COLLATE "C" DESC);
  CREATE INDEX conversations_visitor ON ${s}.conversations (agent_id, visitor_id, updated_at DESC, id COLLATE "C" DESC);
  CREATE INDEX messages_feedback ON ${s}.messages (conversation_id, feedback) WHERE feedback IS NOT NULL;
  `;

/**
 * Names callers choose stop being global, so another owner's use neither blocks nor reveals one.
 * Handles: unique within an owner (owner-less agents count as one owner); a public agent's handle
 * is also its address for visitors, so no two public agents share one. Conversation ids: unique
 * within their agent, so conversations are keyed by (agent_id, id) and messages carry agent_id
 * for their foreign key. Existing handles and conversation ids were unique across all agents, so
 * the new keys hold for them as they are.
 */
/** API keys may end at a time given at creation (null: never). */
function apiKeyExpiry(s: string): string {
  return `ALTER TABLE ${s}.api_keys ADD COLUMN expires_at text COLLATE "C";`;
}

function perOwnerNames(s: string): string {
  return `
  DROP INDEX IF EXISTS ${s}.agents_handle;
  CREATE UNIQUE INDEX agents_owner_handle ON ${s}.agents (COALESCE(owner_id, ''), handle) WHERE handle IS NOT NULL;
  CREATE UNIQUE INDEX agents_public_handle ON ${s}.agents (handle) WHERE handle IS NOT NULL AND visibility = 'public';

  ALTER TABLE ${s}.messages ADD COLUMN agent_id text;
  UPDATE ${s}.messages m SET agent_id = c.agent_id FROM ${s}.conversations c WHERE c.id = m.conversation_id;
  ALTER TABLE ${s}.messages ALTER COLUMN agent_id SET NOT NULL;
  ALTER TABLE ${s}.messages DROP CONSTRAINT messages_conversation_id_fkey;
  ALTER TABLE ${s}.conversations DROP CONSTRAINT conversations_pkey;
  ALTER TABLE ${s}.conversations ADD CONSTRAINT conversations_pkey PRIMARY KEY (agent_id, id);
  ALTER TABLE ${s}.messages ADD CONSTRAINT messages_conversation_fkey
    FOREIGN KEY (agent_id, conversation_id) REFERENCES ${s}.conversations (agent_id, id) ON DELETE CASCADE;
  DROP INDEX ${s}.messages_conversation;
  CREATE INDEX messages_conversation ON ${s}.messages (agent_id, conversation_id, created_at DESC, pk DESC);
  DROP INDEX ${s}.messages_feedback;
  CREATE INDEX messages_feedback ON ${s}.messages (agent_id, conversation_id, feedback) WHERE feedback IS NOT NULL;
  -- A conversation named by its id alone (a reader without the agent) is looked up across agents.
  CREATE INDEX conversations_id ON ${s}.conversations (id);
  `;
}

/** When each crawled page was last requested, so a sitemap's `<lastmod>` can spare the request. */
const crawlFetchedAt = (s: string): string => `ALTER TABLE ${s}.crawl_pages ADD COLUMN fetched_at text;`;

/**
 * Crawls of web datasources: the running or last crawl's counts (one JSON text per datasource) and
 * one row per URL looked at, with the validators (ETag, Last-Modified) the next crawl sends back.
 */
const crawls = (s: string): string => `
  CREATE TABLE ${s}.crawl_states (
    datasource_id text PRIMARY KEY REFERENCES ${s}.datasources (id) ON DELETE CASCADE,
    state text NOT NULL
  );
  CREATE TABLE ${s}.crawl_pages (
    datasource_id text NOT NULL REFERENCES ${s}.datasources (id) ON DELETE CASCADE,
    url text COLLATE "C" NOT NULL,
    status text NOT NULL,
    reason text,
    error text,
    page_id text,
    etag text,
    last_modified text,
    content_hash text,
    updated_at text NOT NULL,
    PRIMARY KEY (datasource_id, url)
  );
`;

const MIGRATIONS: readonly ((s: string) => string)[] = [
  // 1: everything the Store port keeps.
  (s) => `
  CREATE TABLE ${s}.datastores (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    owner_id text,
    name text NOT NULL,
    description text NOT NULL,
    embedding_model text NOT NULL,
    embedding_dimensions integer NOT NULL,
    chunk_sequence bigint NOT NULL DEFAULT 0,
    chunk_count bigint NOT NULL DEFAULT 0,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX datastores_created ON ${s}.datastores (created_at, pk);
  CREATE INDEX datastores_owner ON ${s}.datastores (owner_id, created_at, pk);

  CREATE TABLE ${s}.datasources (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    datastore_id text NOT NULL REFERENCES ${s}.datastores (id) ON DELETE CASCADE,
    type text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    group_id text,
    custom_id text,
    config text NOT NULL,
    metadata text NOT NULL,
    error text,
    content_hash text,
    nb_chunks integer NOT NULL,
    nb_tokens bigint NOT NULL,
    text_size bigint NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    last_synch text COLLATE "C"
  );
  CREATE INDEX datasources_datastore ON ${s}.datasources (datastore_id, created_at, pk);
  CREATE INDEX datasources_group ON ${s}.datasources (group_id, created_at, pk) WHERE group_id IS NOT NULL;

  CREATE TABLE ${s}.chunks (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    datastore_id text NOT NULL,
    datasource_id text NOT NULL REFERENCES ${s}.datasources (id) ON DELETE CASCADE,
    custom_id text,
    position integer NOT NULL,
    token_count integer NOT NULL,
    char_offset integer NOT NULL,
    page_number integer,
    hash text COLLATE "C" NOT NULL,
    metadata text NOT NULL,
    text text NOT NULL,
    embedding real[] NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED
  );
  CREATE INDEX chunks_datasource ON ${s}.chunks (datasource_id, position, pk);
  -- Embedding reuse by hash, and keyset iteration over (hash, pk) of one datastore.
  CREATE INDEX chunks_datastore_hash ON ${s}.chunks (datastore_id, hash, pk);
  -- Exact (filtered) vector search and filtered lexical search read the rows of a few datasources or tenants.
  CREATE INDEX chunks_datastore_source ON ${s}.chunks (datastore_id, datasource_id);
  CREATE INDEX chunks_datastore_custom ON ${s}.chunks (datastore_id, custom_id) WHERE custom_id IS NOT NULL;
  -- fastupdate off: new entries go straight into the index instead of a pending list that every
  -- search scans linearly until vacuum merges it (5k chunks in PGlite: searches 4x faster, inserts
  -- ~1.6x slower). Search latency is what users feel.
  CREATE INDEX chunks_text ON ${s}.chunks USING gin (tsv) WITH (fastupdate = off);

  CREATE TABLE ${s}.status_events (
    pk bigserial PRIMARY KEY,
    datasource_id text NOT NULL REFERENCES ${s}.datasources (id) ON DELETE CASCADE,
    from_status text,
    to_status text NOT NULL,
    at text COLLATE "C" NOT NULL,
    message text
  );
  CREATE INDEX status_events_datasource ON ${s}.status_events (datasource_id, pk);

  CREATE TABLE ${s}.datasource_files (
    datasource_id text PRIMARY KEY REFERENCES ${s}.datasources (id) ON DELETE CASCADE,
    mime_type text NOT NULL,
    file_name text,
    bytes bytea NOT NULL
  );

  CREATE TABLE ${s}.jobs (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    kind text NOT NULL,
    datastore_id text NOT NULL,
    datasource_id text NOT NULL REFERENCES ${s}.datasources (id) ON DELETE CASCADE,
    status text NOT NULL,
    attempts integer NOT NULL,
    run_at text COLLATE "C" NOT NULL,
    lease_owner text,
    lease_until text COLLATE "C",
    last_error text,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX jobs_datasource ON ${s}.jobs (datasource_id, created_at, pk);
  -- Claims scan the few pending / running jobs, not the done ones that pile up.
  CREATE INDEX jobs_open ON ${s}.jobs (created_at, pk) WHERE status IN ('pending', 'running');

  CREATE TABLE ${s}.agents (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    owner_id text,
    name text NOT NULL,
    description text NOT NULL,
    model_name text NOT NULL,
    temperature double precision NOT NULL,
    visibility text NOT NULL,
    system_prompt text,
    user_prompt text,
    prompt_type text,
    prompt_template text,
    datastore_ids text[] NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX agents_created ON ${s}.agents (created_at, pk);
  CREATE INDEX agents_owner ON ${s}.agents (owner_id, created_at, pk);

  CREATE TABLE ${s}.conversations (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    agent_id text NOT NULL REFERENCES ${s}.agents (id) ON DELETE CASCADE,
    visitor_id text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX conversations_agent ON ${s}.conversations (agent_id, created_at, pk);

  CREATE TABLE ${s}.messages (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    conversation_id text NOT NULL REFERENCES ${s}.conversations (id) ON DELETE CASCADE,
    role text NOT NULL,
    text text NOT NULL,
    sources text NOT NULL,
    usage text,
    model text,
    visitor_id text NOT NULL,
    created_at text COLLATE "C" NOT NULL
  );
  -- Conversation memory reads the newest messages first.
  CREATE INDEX messages_conversation ON ${s}.messages (conversation_id, created_at DESC, pk DESC);

  CREATE TABLE ${s}.api_keys (
    pk bigserial UNIQUE,
    id text PRIMARY KEY,
    owner_id text NOT NULL,
    name text NOT NULL,
    hash text NOT NULL UNIQUE,
    prefix text NOT NULL,
    scopes text[] NOT NULL,
    datastore_ids text[],
    created_at text COLLATE "C" NOT NULL,
    last_used_at text COLLATE "C",
    revoked_at text COLLATE "C"
  );
  CREATE INDEX api_keys_created ON ${s}.api_keys (created_at, pk);
  CREATE INDEX api_keys_owner ON ${s}.api_keys (owner_id, created_at, pk);

  CREATE TABLE ${s}.usage_counters (
    subject text NOT NULL,
    metric text NOT NULL,
    period text NOT NULL,
    used double precision NOT NULL,
    PRIMARY KEY (subject, metric, period)
  );
  `,
  // 2: the query settings an agent lets visitors change (field names; none by default).
  (s) => `
  ALTER TABLE ${s}.agents ADD COLUMN allow_overrides text[] NOT NULL DEFAULT '{}';
  `,
  // 3: agent settings of the reference service (JSON text, read whole) and the unique `@handle`.
  (s) => `
  ALTER TABLE ${s}.agents ADD COLUMN handle text;
  ALTER TABLE ${s}.agents ADD COLUMN settings text;
  CREATE UNIQUE INDEX agents_handle ON ${s}.agents (handle) WHERE handle IS NOT NULL;
  ALTER TABLE ${s}.conversations ADD COLUMN contact text;
  `,
  metadataFilters,
  unspacedScripts,
  // Upload links: files chat visitors attach to a message, kept for a day (upload-queries.ts).
  (s) => `
  CREATE TABLE ${s}.uploads (
    id text COLLATE "C" PRIMARY KEY,
    secret_hash text NOT NULL,
    owner_id text,
    agent_id text NOT NULL,
    conversation_id text NOT NULL,
    visitor_id text,
    file_name text NOT NULL,
    mime_type text NOT NULL,
    max_bytes bigint NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    upload_before text COLLATE "C" NOT NULL,
    keep_until text COLLATE "C" NOT NULL,
    uploaded_at text COLLATE "C",
    size bigint,
    bytes bytea
  );
  CREATE INDEX uploads_keep_until ON ${s}.uploads (keep_until);
  `,
  conversationReading,
  perOwnerNames,
  apiKeyExpiry,
  crawls,
  crawlFetchedAt,
];

/** The version that let API keys expire (a test builds a schema of the one before). */
export const API_KEY_EXPIRY_VERSION = MIGRATIONS.indexOf(apiKeyExpiry) + 1;

/** The first migration of metadata filters and scripts, for the test that upgrades an older schema. */
export const METADATA_FILTERS_MIGRATION = MIGRATIONS.indexOf(metadataFilters) + 1;

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The version that added `crawl_pages.fetched_at` (a test builds a schema of the one before). */
export const CRAWL_FETCHED_AT_VERSION = MIGRATIONS.indexOf(crawlFetchedAt) + 1;

/** The version that made handles and conversation ids per owner (tests build a schema of the one before). */
export const PER_OWNER_NAMES_VERSION = MIGRATIONS.indexOf(perOwnerNames) + 1;

/** The version that made conversations readable (a test builds a schema of the one before). */
export const CONVERSATION_READING_VERSION = MIGRATIONS.indexOf(conversationReading) + 1;

/** The default Postgres schema (namespace) of the tables. */
export const DEFAULT_SCHEMA = 'ragdesk';

/**
 * Creates the schema and brings its tables up to {@link SCHEMA_VERSION} (or `upTo`). Safe to call from several
 * processes at once: the advisory lock makes the second wait, then find nothing left to do.
 */
export async function migrate(pool: pg.Pool, schema: string, upTo = SCHEMA_VERSION): Promise<void> {
  const s = quoteIdentifier(schema);
  const encoding = await selectRow<{ server_encoding: string }>(pool, 'SHOW server_encoding');
  if (encoding?.server_encoding !== 'UTF8') {
    // Other encodings mangle or refuse non-ASCII text, and full-text parsing depends on it.
    throw new RagdeskError(
      'invalid_adapter',
      `ragdesk needs a UTF8 database; this one is ${encoding?.server_encoding ?? 'unknown'} (create it with ENCODING 'UTF8')`,
    );
  }
  // Nothing to do (the common case, and the only one a read-only replica allows): no lock, no DDL.
  const applied = await selectRow<{ version: number | null }>(
    pool,
    `SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE (SELECT max(version) FROM ${s}.schema_migrations) END AS version`,
    [`${s}.schema_migrations`],
  ).catch(() => undefined);
  if (applied?.version === upTo) return;
  await inTransaction(pool, async (client) => {
    // Keyed by schema name, so two ragdesk installs in two schemas do not wait for each other.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ragdesk-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const row = await selectRow<{ version: number | null }>(client, `SELECT max(version) AS version FROM ${s}.schema_migrations`);
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new RagdeskError(
        'invalid_adapter',
        `the Postgres schema ${JSON.stringify(schema)} has version ${current}, newer than this ragdesk supports (${SCHEMA_VERSION}); upgrade ragdesk`,
        { details: { schemaVersion: current, supportedVersion: SCHEMA_VERSION } },
      );
    }
    // `upTo` below the latest only in the test that upgrades an older schema.
    for (let version = current + 1; version <= upTo; version += 1) {
      await client.query(MIGRATIONS[version - 1]?.(s) ?? '');
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [version]);
    }
  });
}
