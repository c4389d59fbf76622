// Shared pieces of every page: panels, the error and "not allowed" displays, the confirmation
// dialog, and small formatters. Pages compose these so they look and behave alike.

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, describe } from './api.js';

export function Panel(props: { title: string; children: ComponentChildren; actions?: ComponentChildren; id?: string }) {
  return (
    <section class="panel" aria-labelledby={props.id}>
      <header class="panel-head">
        <h2 id={props.id}>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** A request's failure: "not allowed" when the member refuses the group, else the member's reason. */
export function ErrorView(props: { error: unknown; retry?: () => void }) {
  const e = props.error;
  if (e instanceof ApiError && e.notAllowed) return <NotAllowed reason={e.reason} />;
  return (
    <div class="error" role="alert">
      <strong>Request failed.</strong> {describe(e)}
      {props.retry && (
        <button type="button" class="link" onClick={props.retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function NotAllowed(props: { reason: string }) {
  return (
    <div class="not-allowed" role="alert" data-testid="not-allowed">
      <strong>Not allowed.</strong> This member does not let the console show this: {props.reason}. An operator
      enables endpoint groups in the member's <code>rest-api</code> configuration (docs/configuration.md).
    </div>
  );
}

export function Loading() {
  return <p class="muted" aria-busy="true">Loading…</p>;
}

/**
 * A modal confirmation (the native <dialog>: focus is trapped, Escape cancels). Cancel has the
 * focus first, so Enter on an opened dialog does nothing harmful.
 */
export function Confirm(props: { title: string; children: ComponentChildren; confirmLabel: string; danger?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d !== null && !d.open) d.showModal();
    cancel.current?.focus();
  }, []);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby="confirm-title" onCancel={(e) => { e.preventDefault(); props.onCancel(); }}>
      <h2 id="confirm-title">{props.title}</h2>
      <div class="confirm-body">{props.children}</div>
      <div class="confirm-actions">
        <button type="button" ref={cancel} onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'danger' : 'primary'} onClick={props.onConfirm} data-testid="confirm">
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function formatBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}
