import { useEffect, useRef, useState } from 'preact/hooks';
import type { Agent, AgentInput, Api, Datastore } from '../api.js';
import { EmbedSnippet } from './embed-snippet.js';
import { ModelSelect } from './model-select.js';
import { ConfirmDialog, ErrorNote, Link, StatusNote } from './shared.js';

const EMPTY: AgentInput = {
  name: '',
  description: '',
  modelName: 'gpt_3_5_turbo',
  temperature: 0,
  visibility: 'private',
  systemPrompt: null,
  userPrompt: null,
  tools: [],
};

/** Agents: list, create, edit, delete; links to each one's chat, conversations and widget settings, and its embed code. */
export function AgentsPage({ api, uiBase, editId }: { api: Api; uiBase: string; editId: string | null }) {
  const [agents, setAgents] = useState<Agent[] | null>(null);
  const [datastores, setDatastores] = useState<Datastore[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<{ id: string | null; input: AgentInput } | null>(null);
  const [deleting, setDeleting] = useState<Agent | null>(null);
  /** What the last save or delete did, said where focus lands so keyboard and screen-reader users hear it. */
  const [notice, setNotice] = useState<string | null>(null);
  /** An `/agents/{id}` link opens that agent's form once; a reload after saving does not reopen it. */
  const opened = useRef<string | null>(null);

  const load = () =>
    Promise.all([api.listAgents(), api.listDatastores()]).then(([agentList, datastoreList]) => {
      setAgents(agentList);
      setDatastores(datastoreList);
      performance.mark('ragdesk:interactive');
      const target = editId ? agentList.find((agent) => agent.id === editId) : undefined;
      if (target && opened.current !== target.id) {
        opened.current = target.id;
        setEditing({ id: target.id, input: toInput(target) });
      }
    }, setError);
  useEffect(() => void load(), [api, editId]);

  async function save(event: Event) {
    event.preventDefault();
    if (!editing) return;
    setError(null);
    setNotice(null);
    try {
      if (editing.id) await api.updateAgent(editing.id, editing.input);
      else await api.createAgent(editing.input);
      setEditing(null);
      await load();
      setNotice(editing.id ? `Saved ${editing.input.name}.` : `Created ${editing.input.name}.`);
    } catch (failure) {
      setError(failure);
    }
  }

  const names = new Map(datastores.map((datastore) => [datastore.id, datastore.name]));

  return (
    <main id="main" class="page">
      <div class="row between">
        <h1>Agents</h1>
        {editing ? null : (
          <button
            type="button"
            class="button primary"
            onClick={() => {
              setNotice(null);
              setEditing({ id: null, input: { ...EMPTY } });
            }}
          >
            New agent
          </button>
        )}
      </div>
      <ErrorNote error={error} />
      <StatusNote notice={notice} />
      {editing ? (
        <AgentForm
          api={api}
          editing={editing}
          datastores={datastores}
          onChange={(input) => setEditing({ ...editing, input })}
          onSubmit={(event) => void save(event)}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      {agents === null ? (
        <p class="muted">Loading…</p>
      ) : agents.length === 0 ? (
        <p class="muted">No agent yet. An agent answers from the datastores you give it.</p>
      ) : (
        <ul class="list" aria-label="Agents">
          {agents.map((agent) => (
            <li key={agent.id} class="list-item column">
              <div class="row wrap">
                <div class="grow">
                  <span class="title">{agent.name}</span> <span class={`badge badge-${agent.visibility}`}>{agent.visibility}</span>
                  <p class="muted small">
                    {agent.description || 'No description'} · reads{' '}
                    {agent.datastoreIds.map((id) => names.get(id) ?? id).join(', ') || 'no datastore'}
                  </p>
                </div>
                <Link href={`${uiBase}chat/${agent.id}`} class="button">
                  Chat
                </Link>
                <Link href={`${uiBase}conversations/${agent.id}`} class="button">
                  Conversations
                </Link>
                <Link href={`${uiBase}agents/${agent.id}/widget`} class="button" label={`Widget settings of ${agent.name}`}>
                  Widget
                </Link>
                <button
                  type="button"
                  class="button"
                  onClick={() => setEditing({ id: agent.id, input: toInput(agent) })}
                  aria-label={`Edit ${agent.name}`}
                >
                  Edit
                </button>
                <button type="button" class="button danger" onClick={() => setDeleting(agent)} aria-label={`Delete ${agent.name}`}>
                  Delete
                </button>
              </div>
              <details class="snippet">
                <summary>Embed on a website</summary>
                <EmbedSnippet agent={agent} uiBase={uiBase} />
              </details>
            </li>
          ))}
        </ul>
      )}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          message="The agent and its conversations are deleted. Its datastores stay."
          confirm="Delete agent"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const target = deleting;
            setDeleting(null);
            setNotice(null);
            api
              .deleteAgent(target.id)
              .then(load)
              .then(() => setNotice(`Deleted ${target.name}.`), setError);
          }}
        />
      ) : null}
    </main>
  );
}

function AgentForm(props: {
  api: Api;
  editing: { id: string | null; input: AgentInput };
  datastores: Datastore[];
  onChange: (input: AgentInput) => void;
  onSubmit: (event: Event) => void;
  onCancel: () => void;
}) {
  const { input } = props.editing;
  const set = (change: Partial<AgentInput>) => props.onChange({ ...input, ...change });
  const chosen = new Set(input.tools.map((tool) => tool.datastoreId));
  const text = (event: Event) => (event.target as HTMLInputElement).value;
  return (
    <form class="card form" onSubmit={props.onSubmit} aria-labelledby="agent-form-title">
      <h2 id="agent-form-title">{props.editing.id ? `Edit ${input.name}` : 'New agent'}</h2>
      <label for="agent-name">Name</label>
      <input id="agent-name" required maxLength={200} value={input.name} onInput={(e) => set({ name: text(e) })} />
      <label for="agent-description">Description</label>
      <input id="agent-description" maxLength={10000} value={input.description} onInput={(e) => set({ description: text(e) })} />
      <fieldset>
        <legend>Datastores it answers from</legend>
        {props.datastores.length === 0 ? <p class="muted small">No datastore yet.</p> : null}
        {props.datastores.map((datastore) => (
          <label key={datastore.id} class="check">
            <input
              type="checkbox"
              checked={chosen.has(datastore.id)}
              onChange={(e) => {
                const on = (e.target as HTMLInputElement).checked;
                const ids = on ? [...chosen, datastore.id] : [...chosen].filter((id) => id !== datastore.id);
                set({ tools: ids.map((datastoreId) => ({ type: 'datastore', datastoreId })) });
              }}
            />
            {datastore.name}
          </label>
        ))}
      </fieldset>
      <div class="row wrap">
        <ModelSelect api={props.api} value={input.modelName} isNew={!props.editing.id} onChange={(modelName) => set({ modelName })} />
        <div class="field">
          <label for="agent-temperature">Temperature</label>
          <input
            id="agent-temperature"
            type="number"
            min={0}
            max={1}
            step={0.1}
            value={String(input.temperature)}
            onInput={(e) => set({ temperature: Math.min(1, Math.max(0, Number(text(e)) || 0)) })}
          />
        </div>
        <div class="field">
          <label for="agent-visibility">Visibility</label>
          <select id="agent-visibility" value={input.visibility} onChange={(e) => set({ visibility: text(e) as 'public' })}>
            <option value="private">Private (needs a key)</option>
            <option value="public">Public (anyone can chat, embeddable)</option>
          </select>
        </div>
      </div>
      <label for="agent-system-prompt">System prompt (optional)</label>
      <textarea
        id="agent-system-prompt"
        rows={3}
        value={input.systemPrompt ?? ''}
        onInput={(e) => set({ systemPrompt: text(e) || null })}
      />
      <label for="agent-user-prompt">User prompt template (optional)</label>
      <textarea id="agent-user-prompt" rows={2} value={input.userPrompt ?? ''} onInput={(e) => set({ userPrompt: text(e) || null })} />
      <div class="row end">
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" class="button primary">
          {props.editing.id ? 'Save agent' : 'Create agent'}
        </button>
      </div>
    </form>
  );
}

function toInput(agent: Agent): AgentInput {
  return {
    name: agent.name,
    description: agent.description,
    modelName: agent.modelName,
    temperature: agent.temperature,
    visibility: agent.visibility,
    systemPrompt: agent.systemPrompt,
    userPrompt: agent.userPrompt,
    tools: agent.datastoreIds.map((datastoreId) => ({ type: 'datastore', datastoreId })),
  };
}
