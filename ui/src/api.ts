/**
 * The console's only way to the server: the public HTTP API (docs/http.md), with the key the
 * person signed in with. Errors keep the API's `{ error: { code, message, details } }`.
 */
export interface Datastore {
  id: string;
  name: string;
  description: string;
  embeddingModel: string;
  createdAt: string;
  updatedAt: string;
}

export type DatasourceStatus = 'unsynched' | 'pending' | 'running' | 'synched' | 'error' | 'usage_limit_reached';

export interface Datasource {
  id: string;
  datastoreId: string;
  type: 'file' | 'text' | 'web_page' | 'web_site';
  name: string;
  status: DatasourceStatus;
  groupId: string | null;
  customId: string | null;
  config: Record<string, unknown>;
  error: string | null;
  nbChunks: number;
  nbTokens: number;
  textSize: number;
  createdAt: string;
  updatedAt: string;
  lastSynch: string | null;
  /** Web pages and sites: the crawl under way or the last one, its result and the schedule. */
  crawl?: CrawlInfo;
}

export interface CrawlInfo {
  found: number;
  fetched: number;
  unchanged: number;
  skipped: { robots: number; type: number; limit: number };
  failed: number;
  startedAt: string | null;
  finishedAt: string | null;
  lastResult: { added: number; changed: number; removed: number; unchanged: number; failed: number } | null;
  refresh: { every: string } | null;
  nextRefreshAt: string | null;
}

interface CrawlPage {
  url: string;
  status: 'fetched' | 'unchanged' | 'skipped' | 'failed';
  reason: string | null;
  error: string | null;
  pageId: string | null;
  updatedAt: string;
}

export interface CrawlPageList {
  items: CrawlPage[];
  total: number;
  offset: number;
  limit: number;
}

export interface Fragment {
  text: string;
  score: number;
  source: string;
  datasource_id: string;
  datasource_name: string;
  custom_id: string | null;
  chunk_id: string;
  page_number: number | null;
}

export type RetrievalMode = 'hybrid' | 'vector' | 'lexical';

export interface DatastoreStats {
  datasources: number;
  documents: number;
  chunks: number;
  tokens: number;
  textChars: number;
  fileBytes: number;
}

interface Chunk {
  id: string;
  position: number;
  text: string;
  page_number: number | null;
  token_count: number;
  custom_id: string | null;
}

export interface ChunkPage {
  chunks: Chunk[];
  total: number;
  offset: number;
  limit: number;
}

export type ApiKeyScope = 'read' | 'write' | 'query' | 'admin';

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  datastoreIds: string[] | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface UsageFigure {
  used: number | null;
  limit: number | null;
}

export interface Usage {
  ownerId: string;
  agentQueries: UsageFigure & { period: 'hour' | 'day' | 'month' | null; bucket: string | null };
  storedTokens: UsageFigure;
  chunks: UsageFigure;
  datasources: UsageFigure;
  fileBytes: UsageFigure;
  perDocument: { maxFileBytes: number | null; maxPagesPerSite: number | null; maxChars: number | null; maxChunks: number | null };
}

export type ModelName = 'gpt_3_5_turbo' | 'gpt_3_5_turbo_16k' | 'gpt_4' | 'gpt_4_32k' | 'local_extractive';

/** `GET /api/models`: what this server runs. */
export interface ServerModels {
  models: ModelName[];
  default: ModelName | null;
  answerer: string | null;
}

export interface Agent {
  id: string;
  name: string;
  description: string;
  modelName: ModelName;
  temperature: number;
  visibility: 'public' | 'private';
  systemPrompt: string | null;
  userPrompt: string | null;
  promptType: 'raw' | 'customer_support' | null;
  datastoreIds: string[];
  /** How chat widgets draw the agent, and the sites allowed to use it (`authorizedDomains`). */
  interfaceConfig: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export interface AgentInput {
  name: string;
  description: string;
  modelName: ModelName;
  temperature: number;
  visibility: 'public' | 'private';
  systemPrompt: string | null;
  userPrompt: string | null;
  tools: { type: 'datastore'; datastoreId: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** What to tell a person: the API's message, with the missing scope named for a 403. */
  explain(): string {
    if (this.status === 401) return 'This API key was refused (unknown, revoked or mistyped). Sign in again with a valid key.';
    if (this.status === 403 && typeof this.details.scope === 'string')
      return `This API key lacks the "${this.details.scope}" scope needed here.`;
    if (this.status === 402) return `Usage limit reached: ${this.message}`;
    return this.message;
  }
}

export async function errorFrom(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } };
    return new ApiError(
      response.status,
      body.error?.code ?? 'error',
      body.error?.message ?? response.statusText,
      body.error?.details ?? {},
    );
  } catch {
    return new ApiError(response.status, 'error', `${response.status} ${response.statusText}`);
  }
}

export class Api {
  constructor(
    readonly base: string,
    /** The signed-in key (the widget preview asks questions with it). */
    readonly key: string | null,
  ) {}

  headers(json: boolean): Record<string, string> {
    return { ...(this.key ? { authorization: `Bearer ${this.key}` } : {}), ...(json ? { 'content-type': 'application/json' } : {}) };
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.requestWithHeaders<T>(method, path, body)).body;
  }

  async requestWithHeaders<T>(method: string, path: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
    const form = body instanceof FormData;
    const response = await fetch(this.base + path, {
      method,
      headers: this.headers(body !== undefined && !form),
      ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
    });
    if (!response.ok) throw await errorFrom(response);
    return { body: (await response.json()) as T, headers: response.headers };
  }

  listDatastores = () => this.request<Datastore[]>('GET', '/datastores');
  getDatastore = (id: string) => this.request<Datastore>('GET', `/datastores/${encodeURIComponent(id)}`);
  createDatastore = (name: string, description: string) => this.request<Datastore>('POST', '/datastores', { name, description });
  renameDatastore = (id: string, name: string) => this.request<Datastore>('PATCH', `/datastores/${encodeURIComponent(id)}`, { name });
  deleteDatastore = (id: string) => this.request<Datastore>('DELETE', `/datastores/${encodeURIComponent(id)}`);
  queryDatastore = (
    id: string,
    body: { query: string; topK: number; mode?: RetrievalMode; filters?: { custom_ids?: string[]; datasource_ids?: string[] } },
  ) => this.request<Fragment[]>('POST', `/datastores/${encodeURIComponent(id)}/query`, body);
  getDatastoreStats = (id: string) => this.request<DatastoreStats>('GET', `/datastores/${encodeURIComponent(id)}/stats`);

  listDatasources = (datastoreId: string) =>
    this.request<Datasource[]>('GET', `/datasources?datastoreId=${encodeURIComponent(datastoreId)}`);
  /** One page of a datastore's datasources (`groupId`: `none` for top-level ones, or a site's id), with how many match. */
  pageDatasources = async (datastoreId: string, page: { offset: number; limit: number; name?: string; groupId?: string }) => {
    const query = new URLSearchParams({ datastoreId, offset: String(page.offset), limit: String(page.limit) });
    if (page.name) query.set('name', page.name);
    if (page.groupId) query.set('groupId', page.groupId);
    const { body, headers } = await this.requestWithHeaders<Datasource[]>('GET', `/datasources?${query}`);
    return { datasources: body, total: Number(headers.get('x-total-count') ?? body.length) };
  };
  listChunks = (datasourceId: string, page: { offset: number; limit: number; q?: string }) => {
    const query = new URLSearchParams({ offset: String(page.offset), limit: String(page.limit) });
    if (page.q) query.set('q', page.q);
    return this.request<ChunkPage>('GET', `/datasources/${encodeURIComponent(datasourceId)}/chunks?${query}`);
  };
  uploadFile = (datastoreId: string, file: File, customId: string) => {
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    if (customId) form.set('custom_id', customId);
    form.set('file', file, file.name);
    return this.request<Datasource>('POST', '/datasources', form);
  };
  addWeb = (body: { type: 'web_page' | 'web_site'; datastoreId: string; custom_id?: string; config: Record<string, string> }) =>
    this.request<Datasource>('POST', '/datasources', body);
  syncDatasource = (id: string) => this.request<Datasource>('POST', `/datasources/${encodeURIComponent(id)}/sync`);
  deleteDatasource = (id: string) => this.request<Datasource>('DELETE', `/datasources/${encodeURIComponent(id)}`);
  getDatasource = (id: string) => this.request<Datasource>('GET', `/datasources/${encodeURIComponent(id)}`);
  listCrawlPages = (id: string, offset: number, limit: number) =>
    this.request<CrawlPageList>('GET', `/datasources/${encodeURIComponent(id)}/pages?offset=${offset}&limit=${limit}`);
  setRefresh = (id: string, refresh: { every: string } | null) =>
    this.request<Datasource>('PATCH', `/datasources/${encodeURIComponent(id)}`, { refresh });

  listKeys = () => this.request<ApiKey[]>('GET', '/keys');
  createKey = (input: { name: string; scopes: ApiKeyScope[]; datastoreIds: string[] | null; expiresAt: string | null }) =>
    this.request<ApiKey & { key: string }>('POST', '/keys', input);
  revokeKey = (id: string) => this.request<ApiKey>('DELETE', `/keys/${encodeURIComponent(id)}`);
  getUsage = () => this.request<Usage>('GET', '/usage');

  listModels = () => this.request<ServerModels>('GET', '/models');
  listAgents = () => this.request<Agent[]>('GET', '/agents');
  getAgent = (id: string) => this.request<Agent>('GET', `/agents/${encodeURIComponent(id)}`);
  createAgent = (input: AgentInput) => this.request<Agent>('POST', '/agents', input);
  updateAgent = (id: string, input: AgentInput) => this.request<Agent>('PATCH', `/agents/${encodeURIComponent(id)}`, input);
  /** Replaces the agent's `interfaceConfig` (a PATCH names `description`, which it keeps). */
  setAgentInterface = (agent: Agent, interfaceConfig: Record<string, unknown>) =>
    this.request<Agent>('PATCH', `/agents/${encodeURIComponent(agent.id)}`, { description: agent.description, interfaceConfig });
  deleteAgent = (id: string) => this.request<Agent>('DELETE', `/agents/${encodeURIComponent(id)}`);
}
