import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';

/**
 * Zero's upstream: the workload as a PostgreSQL table, `visits`, one column a field, loaded
 * before zero-cache starts (as the other peers' stores are loaded before their servers start).
 */
export interface Column {
  name: string;
  /** Zero's column type; its PostgreSQL type is SQL_TYPES[type]. */
  type: 'string' | 'number' | 'boolean' | 'json';
}

const SQL_TYPES: Record<Column['type'], string> = { string: 'text', number: 'double precision', boolean: 'boolean', json: 'jsonb' };

async function* documents(file: string): AsyncGenerator<Record<string, unknown>> {
  for await (const line of createInterface({ input: createReadStream(file) })) if (line) yield JSON.parse(line) as Record<string, unknown>;
}

const typeOf = (value: unknown): Column['type'] | null => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return typeof value as Column['type'];
  return 'json';
};

/**
 * The columns of the workload's documents (CouchDB's shape, as exported: the id is `_id`), `id`
 * first: a field's type is the one its non-null values share (`json` when they disagree, `string`
 * when every value is null).
 */
export async function workloadColumns(file: string): Promise<Column[]> {
  const types = new Map<string, Column['type'] | null>();
  for await (const { _id, ...fields } of documents(file)) {
    if (typeof _id !== 'string') throw new Error('a workload document has no string _id');
    for (const [name, value] of Object.entries(fields)) {
      const type = typeOf(value);
      const known = types.get(name);
      if (known === undefined || known === null) types.set(name, type);
      else if (type !== null && type !== known) types.set(name, 'json');
    }
  }
  return [{ name: 'id', type: 'string' }, ...[...types].map(([name, type]) => ({ name, type: type ?? 'string' }))];
}

/** Creates `visits` and copies the workload into it, 1,000 documents a statement. Returns the count. */
export async function loadUpstream(url: string, file: string, columns: Column[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ident = (name: string) => client.escapeIdentifier(name);
    const definitions = columns.map(({ name, type }) => `${ident(name)} ${SQL_TYPES[type]}${name === 'id' ? ' PRIMARY KEY' : ''}`);
    await client.query(`CREATE TABLE visits (${definitions.join(', ')})`);
    let batch: Record<string, unknown>[] = [];
    let written = 0;
    const flush = async () => {
      // jsonb_populate_recordset fills each column from the field of its name, typed by the column.
      const { rowCount } = await client.query('INSERT INTO visits SELECT * FROM jsonb_populate_recordset(NULL::visits, $1::jsonb)', [JSON.stringify(batch)]);
      written += rowCount ?? 0;
      batch = [];
    };
    for await (const { _id, ...fields } of documents(file)) {
      batch.push({ id: _id, ...fields });
      if (batch.length === 1000) await flush();
    }
    if (batch.length) await flush();
    return written;
  } finally {
    await client.end();
  }
}
