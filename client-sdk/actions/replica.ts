import type { ReplicaDatabase } from '../replica/database.js';
import type { LocalChanges } from '../replication/local-changes.js';

/** What an action works on: the replica to read, and the one path for changing it. */
export interface Replica {
  db: ReplicaDatabase;
  changes: LocalChanges;
}
