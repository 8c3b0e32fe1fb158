import { canonical } from './api.js';
import type { ActionResult } from './device-actions.js';

/**
 * What the simulated people did, as far as the checks need it: who wrote which value of which
 * field, what was created and deleted, every stock movement, photo and payment taken.
 */
export class History {
  /** "collection/id/field" -> canonical value -> writers (user ids). */
  private readonly values = new Map<string, Map<string, Set<string>>>();
  readonly created: { collection: string; id: string; by: string }[] = [];
  readonly deleted = new Set<string>();
  readonly deletedCustomers = new Set<string>();
  readonly movements: NonNullable<ActionResult['movement']>[] = [];
  readonly photos: NonNullable<ActionResult['photo']>[] = [];
  readonly payments: NonNullable<ActionResult['payment']>[] = [];
  actions = 0;
  done = 0;

  wrote(collection: string, id: string, fields: Record<string, unknown>, by: string): void {
    for (const [field, value] of Object.entries(fields)) {
      const key = `${collection}/${id}/${field}`;
      const byValue = this.values.get(key) ?? new Map<string, Set<string>>();
      const writers = byValue.get(canonical(value)) ?? new Set<string>();
      writers.add(by);
      byValue.set(canonical(value), writers);
      this.values.set(key, byValue);
    }
  }

  /** Who wrote this value; a null nobody wrote is the creator's (a field left out when it was made). */
  writersOf(collection: string, id: string, field: string, value: unknown): Set<string> {
    const writers = this.values.get(`${collection}/${id}/${field}`)?.get(canonical(value));
    if (writers?.size || value != null) return writers ?? new Set();
    return new Set(this.created.filter((c) => c.collection === collection && c.id === id).map((c) => c.by));
  }

  record(result: ActionResult, by: string): void {
    this.actions++;
    if (!result.done) return;
    this.done++;
    for (const w of result.writes ?? []) this.wrote(w.collection, w.id, w.fields, by);
    for (const c of result.created ?? []) this.created.push({ ...c, by });
    for (const d of result.deleted ?? []) {
      this.deleted.add(`${d.collection}/${d.id}`);
      if (d.collection === 'customers') this.deletedCustomers.add(d.id);
    }
    if (result.movement) this.movements.push(result.movement);
    this.movements.push(...(result.movements ?? []));
    if (result.photo) this.photos.push(result.photo);
    if (result.payment) this.payments.push(result.payment);
  }
}
