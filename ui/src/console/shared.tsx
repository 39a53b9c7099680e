import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, type DatasourceStatus } from '../api.js';

/** A link inside the console: navigates without a page load. */
export function Link(props: { href: string; children: ComponentChildren; class?: string; label?: string }) {
  const { href, children, class: className, label } = props;
  return (
    <a
      href={href}
      class={className}
      aria-label={label}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

export function navigate(href: string) {
  history.pushState(null, '', href);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {explain(error)}
    </p>
  );
}

export function explain(error: unknown): string {
  if (error instanceof ApiError) return error.explain();
  if (error instanceof TypeError) return 'The server could not be reached.';
  return error instanceof Error ? error.message : String(error);
}

const STATUS_LABEL: Record<DatasourceStatus, string> = {
  unsynched: 'not synched',
  pending: 'pending',
  running: 'syncing',
  synched: 'synched',
  error: 'error',
  usage_limit_reached: 'usage limit',
};

export function StatusBadge({ status }: { status: DatasourceStatus }) {
  const busy = status === 'pending' || status === 'running';
  return (
    <span class={`badge badge-${status}`} data-status={status}>
      {busy ? <span class="spinner" aria-hidden="true" /> : null}
      {STATUS_LABEL[status]}
    </span>
  );
}

/** A modal question with the native <dialog> (focus trapped and restored, Escape cancels). */
export function ConfirmDialog(props: { title: string; message: string; confirm: string; onConfirm: () => void; onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="dialog-title" onClose={props.onCancel}>
      <h2 id="dialog-title">{props.title}</h2>
      <p>{props.message}</p>
      <div class="row end">
        <button type="button" class="button" onClick={props.onCancel} autofocus>
          Cancel
        </button>
        <button type="button" class="button danger" onClick={props.onConfirm}>
          {props.confirm}
        </button>
      </div>
    </dialog>
  );
}

export function formatDate(iso: string | null): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** What the last action did, shown where focus lands so keyboard and screen-reader users hear it. */
export function StatusNote({ notice }: { notice: string | null }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (notice) ref.current?.focus();
  }, [notice]);
  return notice ? (
    <p class="notice" role="status" tabIndex={-1} ref={ref}>
      {notice}
    </p>
  ) : null;
}
