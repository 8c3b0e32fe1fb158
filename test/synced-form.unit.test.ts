import { describe, expect, it } from 'vitest';
import { formReducer } from '../client-sdk/app-kit/synced-form.js';

/**
 * The forms over synced documents (a technician's readings, the office's visit edit): what React
 * applies, in the order it applies it. A keystroke and the document's new state can reach the
 * reducer in either order; the keystroke must never be lost.
 */
type Form = { chlorine: string; ph: string; notes: string };
const empty: Form = { chlorine: '', ph: '', notes: '' };
const start = { form: empty, base: empty, dirty: false };

describe('a form over a synced document', () => {
  it('keeps a keystroke that came just before the document changed (the visit written by "Start visit")', () => {
    let state = formReducer(start, { kind: 'typed', field: 'chlorine', value: '0.5' });
    state = formReducer(state, { kind: 'synced', form: { ...empty, notes: 'started' } });
    state = formReducer(state, { kind: 'typed', field: 'ph', value: '7.6' });
    expect(state.form).toEqual({ chlorine: '0.5', ph: '7.6', notes: '' });
    expect(state.base).toEqual(empty);
    expect(state.dirty).toBe(true);
  });

  it('shows a change made elsewhere until the user types, and again once what was typed is stored', () => {
    let state = formReducer(start, { kind: 'synced', form: { ...empty, notes: 'from the office' } });
    expect(state).toEqual({ form: { ...empty, notes: 'from the office' }, base: { ...empty, notes: 'from the office' }, dirty: false });
    state = formReducer(state, { kind: 'typed', field: 'notes', value: 'mine' });
    state = formReducer(state, { kind: 'saved', form: state.form });
    expect(state).toEqual({ form: { ...empty, notes: 'mine' }, base: { ...empty, notes: 'mine' }, dirty: false });
    state = formReducer(state, { kind: 'synced', form: { ...empty, notes: 'mine', ph: '7.2' } });
    expect(state.form).toEqual({ chlorine: '', ph: '7.2', notes: 'mine' });
  });

  it('keeps what was typed while a save was on its way, to be saved next', () => {
    let state = formReducer(start, { kind: 'typed', field: 'ph', value: '7.6' });
    const sent = state.form;
    state = formReducer(state, { kind: 'typed', field: 'notes', value: 'backwashed' });
    state = formReducer(state, { kind: 'saved', form: sent });
    expect(state.dirty).toBe(true);
    expect(state.base).toEqual(sent);
    state = formReducer(state, { kind: 'synced', form: sent });
    expect(state.form).toEqual({ chlorine: '', ph: '7.6', notes: 'backwashed' });
  });
});
