/**
 * One organization's live subscribers grouped by what they receive of each collection: the whole
 * of it, or one audience's feed (a technician's own, or the office's). Grouped when a subscriber
 * arrives, so a change reaches its takers without the fan-out asking each of a thousand streams
 * about its role and collections on every change.
 */
export class LiveTakers<S> {
  private readonly groups = new Map<string, Group<S>>();

  add(collection: string, audience: string | null, subscriber: S): void {
    const key = keyOf(collection, audience);
    const group = this.groups.get(key) ?? { members: new Set<S>(), list: null };
    this.groups.set(key, group);
    group.members.add(subscriber);
    group.list = null;
  }

  remove(collection: string, audience: string | null, subscriber: S): void {
    const key = keyOf(collection, audience);
    const group = this.groups.get(key);
    if (!group?.members.delete(subscriber)) return;
    group.list = null;
    if (!group.members.size) this.groups.delete(key);
  }

  /** The subscribers taking `collection` whole (audience null) or through `audience`'s feed. */
  of(collection: string, audience: string | null): readonly S[] {
    const group = this.groups.get(keyOf(collection, audience));
    if (!group) return [];
    // Kept between changes: the members change far less often than changes arrive.
    group.list ??= [...group.members];
    return group.list;
  }
}

interface Group<S> {
  members: Set<S>;
  list: S[] | null;
}

/** Collection names hold no newline; audiences are user ids or the office's. */
function keyOf(collection: string, audience: string | null): string {
  return audience === null ? collection : `${collection}\n${audience}`;
}
