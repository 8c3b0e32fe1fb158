import { useEffect, useMemo, useReducer } from 'react';
import { useEditInProgress } from './edits-in-progress.js';

type Fields = Record<string, string>;

/** What the form holds: what is typed, what the document said when typing began, and whether anything is typed since. */
interface FormState<F extends Fields> {
  form: F;
  base: F;
  dirty: boolean;
}

type FormEvent<F extends Fields> = { kind: 'typed'; field: keyof F; value: string } | { kind: 'synced'; form: F } | { kind: 'saved'; form: F };

/**
 * One reducer, so a change of the document and a keystroke arriving together are applied in the
 * order they came: the document's new state was applied by an effect after its render, and a
 * keystroke typed between that render and the effect was written over by it (a technician's first
 * reading vanished that way, right after "Start visit" wrote the visit).
 */
export function formReducer<F extends Fields>(state: FormState<F>, event: FormEvent<F>): FormState<F> {
  switch (event.kind) {
    case 'typed':
      return { ...state, form: { ...state.form, [event.field]: event.value }, dirty: true };
    case 'synced':
      return state.dirty ? state : { form: event.form, base: event.form, dirty: false };
    case 'saved':
      // What was typed while it was being stored is still to store.
      return { ...state, base: event.form, dirty: Object.keys(state.form).some((field) => state.form[field] !== event.form[field]) };
  }
}

export interface SyncedForm<F extends Fields> {
  form: F;
  /** What the document said when editing began: write only the fields changed from it. */
  base: F;
  dirty: boolean;
  /** The change handler of one field. */
  set: (field: keyof F) => (e: { target: { value: string } }) => void;
  /** This form (what was typed when saving began) is stored: changes of the document show again, unless more was typed since. */
  saved: (stored: F) => void;
}

/**
 * A form over a document that syncs: changes made elsewhere show in it until this user types,
 * and never overwrite what they typed.
 */
export function useSyncedForm<D, F extends Fields>(doc: D, formOf: (doc: D) => F): SyncedForm<F> {
  const synced = useMemo(() => formOf(doc), [doc, formOf]);
  const [state, dispatch] = useReducer(formReducer<F>, synced, (form) => ({ form, base: form, dirty: false }));
  useEffect(() => dispatch({ kind: 'synced', form: synced }), [synced]);
  // What is typed and not stored holds off an app update's reload (app-kit/safe-moment.ts).
  useEditInProgress(state.dirty);
  return {
    ...state,
    set: (field) => (e) => dispatch({ kind: 'typed', field, value: e.target.value }),
    saved: (stored) => dispatch({ kind: 'saved', form: stored }),
  };
}
