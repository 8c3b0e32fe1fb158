import { useEffect } from 'react';

/**
 * Whether the person is in the middle of entering something: a form typed into since it was last
 * submitted (seen in the page's own `input` and `submit` events, so every form counts without
 * wiring), or a form that says so itself (`useEditInProgress`: useSyncedForm, whose save may fail
 * and leave what was typed unsaved). An app update waits for none of these to be so: a reload
 * would throw what was typed away (app-kit/safe-moment.ts).
 */
const typedForms = new Set<HTMLFormElement>();
const heldBy = new Set<object>();
const settledListeners = new Set<() => void>();
let watching = false;

export function editsInProgress(): boolean {
  // A form gone from the page (its screen was left) holds nothing any more.
  for (const form of typedForms) if (!form.isConnected) typedForms.delete(form);
  return typedForms.size > 0 || heldBy.size > 0;
}

/** Called each time the last edit in progress ends (a form submitted, or one that said so clean). */
export function onEditsSettled(listener: () => void): () => void {
  watchForms();
  settledListeners.add(listener);
  return () => settledListeners.delete(listener);
}

/** A form that knows when it holds unsaved input says so while it does. */
export function useEditInProgress(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const holder = {};
    heldBy.add(holder);
    return () => {
      heldBy.delete(holder);
      settledSoon();
    };
  }, [dirty]);
}

function watchForms(): void {
  if (watching || typeof document === 'undefined') return;
  watching = true;
  const formOf = (event: Event) => (event.target instanceof Element ? event.target.closest('form') : null);
  document.addEventListener('input', (event) => {
    const form = formOf(event);
    if (form) typedForms.add(form);
  }, true);
  const done = (event: Event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null;
    if (form && typedForms.delete(form)) settledSoon();
  };
  document.addEventListener('submit', done, true);
  document.addEventListener('reset', done, true);
}

/** After the event's own handlers have run (a save may mark its form clean, or not). */
function settledSoon(): void {
  setTimeout(() => {
    if (!editsInProgress()) for (const listener of settledListeners) listener();
  }, 0);
}
