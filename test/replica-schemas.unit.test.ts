import { describe, expect, it } from 'vitest';
import { REPLICA_SCHEMA_HISTORY, replicaSchemaHash, replicatedResources } from '../shared/index.js';

/**
 * A device keeps its replica across app updates. Its collections' schemas are versioned by
 * shared/sync/replica-schemas.ts; a resource whose fields change without a new entry there would
 * make RxDB refuse the replica every browser already holds.
 */
describe('replica schema history', () => {
  it.each(replicatedResources.map((r) => [r.collection, r] as const))('%s: the schema devices open is the last one recorded', (collection, resource) => {
    const hash = replicaSchemaHash(resource);
    const history = REPLICA_SCHEMA_HISTORY[collection];
    expect(
      history.at(-1),
      `The replica schema of ${collection} changed: append '${hash}' to REPLICA_SCHEMA_HISTORY.${collection} in shared/sync/replica-schemas.ts, so devices migrate the replicas they hold`,
    ).toBe(hash);
    expect(new Set(history).size, 'a schema appears once in its history').toBe(history.length);
  });
});
