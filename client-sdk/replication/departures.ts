import { pendingKey } from './pending-changes.js';

/**
 * A row that left this device's scope (the office gave the visit to another technician, the truck
 * to someone else) and is gone from the replica. `changesDelivered`: changes made on this device
 * (in this session) went to the server before it left, merged there as any push; a row with changes
 * still waiting is never removed. Nothing the technician wrote is dropped by a departure.
 */
export interface Departure {
  collection: string;
  id: string;
  changesDelivered: boolean;
  /** The document as this device held it, to name it to the person (it is gone from the replica). */
  held: Record<string, unknown>;
}

/** Rows pushed in this session that are remembered (the newest; older ones are forgotten first). */
const REMEMBERED = 10_000;

/**
 * Tells the app of departures as they are applied. A departure that finds the row with local
 * changes is passed over (the changes are pushed first, and the server then sends the departure
 * again); the rows this device pushed are remembered, so that the app hears, when such a row does
 * go, that its changes were delivered.
 */
export class Departures {
  /** Rows with changes pushed (or waiting to be) before they departed, oldest first. */
  private readonly changed = new Set<string>();

  constructor(private readonly report: (departure: Departure) => void) {}

  /** A departure arrived for a row with changes not yet pushed: the row stays for now. */
  postpone(collection: string, id: string): void {
    this.remember(pendingKey(collection, id));
  }

  /** Changes of these rows reached the server. */
  pushed(collection: string, ids: readonly string[]): void {
    for (const id of ids) this.remember(pendingKey(collection, id));
  }

  /** The row is gone from the replica; `held` is what it was. */
  applied(collection: string, id: string, held: Record<string, unknown>): void {
    this.report({ collection, id, changesDelivered: this.changed.delete(pendingKey(collection, id)), held });
  }

  private remember(key: string): void {
    this.changed.delete(key);
    this.changed.add(key);
    if (this.changed.size > REMEMBERED) this.changed.delete(this.changed.values().next().value!);
  }
}
