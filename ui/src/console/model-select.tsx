import { useEffect, useState } from 'preact/hooks';
import type { Api, ModelName, ServerModels } from '../api.js';

const LABELS: Record<ModelName, string> = {
  gpt_3_5_turbo: 'GPT-3.5 Turbo',
  gpt_3_5_turbo_16k: 'GPT-3.5 Turbo 16k',
  gpt_4: 'GPT-4',
  gpt_4_32k: 'GPT-4 32k',
  local_extractive: 'Offline answerer (quotes the documents)',
};

/**
 * The agent's model, among the ones the server runs (`GET /api/models`). A saved agent's model the
 * server cannot run stays visible, marked, so opening the form never changes it behind the
 * person's back; a new agent starts on the server's default.
 */
export function ModelSelect(props: { api: Api; value: ModelName; isNew: boolean; onChange: (name: ModelName) => void }) {
  const [offered, setOffered] = useState<ServerModels | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    props.api.listModels().then(setOffered, () => setFailed(true));
  }, [props.api]);
  useEffect(() => {
    if (offered?.default && props.isNew && !offered.models.includes(props.value)) props.onChange(offered.default);
  }, [offered]);

  const runnable = offered?.models ?? [];
  const names = offered && !runnable.includes(props.value) ? [props.value, ...runnable] : runnable;
  return (
    <div class="field">
      <label for="agent-model">Model</label>
      <select
        id="agent-model"
        value={props.value}
        disabled={offered === null && !failed}
        aria-describedby={failed ? 'agent-model-note' : undefined}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as ModelName)}
      >
        {offered === null ? <option value={props.value}>{LABELS[props.value] ?? props.value}</option> : null}
        {names.map((name) => (
          <option key={name} value={name}>
            {runnable.includes(name) ? (LABELS[name] ?? name) : `${LABELS[name] ?? name} (not available on this server)`}
          </option>
        ))}
      </select>
      {failed ? (
        <p id="agent-model-note" class="small muted">
          The server did not say which models it runs.
        </p>
      ) : null}
    </div>
  );
}
