import pg from 'pg';
import { createTestDatabase } from '../support/engines.js';

/**
 * A bench's own PostgreSQL database beside `postgresUrl`'s. With BENCH_PG_SYNCHRONOUS_COMMIT=off
 * its commits are acknowledged before PostgreSQL flushes them (the server warns on /readyz): run
 * once with and once without to see what PostgreSQL's flush at commit costs a bench.
 */
export async function benchDatabase(postgresUrl: string | undefined, prefix: string): Promise<{ url: string; dropDatabase(): Promise<void> }> {
  const database = await createTestDatabase(postgresUrl, prefix);
  if (process.env.BENCH_PG_SYNCHRONOUS_COMMIT === 'off') {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('select current_database() as name');
      await client.query(`alter database ${client.escapeIdentifier(rows[0]!.name)} set synchronous_commit = off`);
    } finally {
      await client.end();
    }
  }
  return database;
}
