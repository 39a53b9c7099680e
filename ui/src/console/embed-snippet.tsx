import { useState } from 'preact/hooks';
import type { Agent } from '../api.js';

/** The widget's `<script>` tag for an agent, with a copy button; a private agent says what is missing. */
export function EmbedSnippet({ agent, uiBase }: { agent: Agent; uiBase: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const snippet = `<script src="${location.origin}${uiBase}widget.js" data-agent-id="${agent.id}" defer></script>`;
  return (
    <div class="snippet-body">
      <p class="small muted">
        Paste before <code>&lt;/body&gt;</code>. Only sites in the agent's allowed origins (its widget settings) can use it.
      </p>
      {agent.visibility === 'private' ? (
        <p class="small note">This agent is private: visitors of other sites cannot use it until it is made public.</p>
      ) : null}
      <pre>
        <code>{snippet}</code>
      </pre>
      <div class="row">
        <button
          type="button"
          class="button small"
          aria-label={`Copy the embed code of ${agent.name}`}
          onClick={() => {
            setCopied(null);
            navigator.clipboard.writeText(snippet).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            );
          }}
        >
          Copy
        </button>
        {/* Always in the page, so screen readers announce the change. */}
        <p class="small copy-status" aria-live="polite">
          {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'The browser refused to copy: select the code and copy it.' : ''}
        </p>
      </div>
    </div>
  );
}
