/**
 * How the schema lays out on a distributed PostgreSQL such as Citus (server/README.md, "Beyond one
 * database server"). Every table with `org_id` is distributed by it, all colocated: an
 * organization's rows sit together on one node, and a statement scoped by `org_id` is routed
 * there. For that, every unique constraint of such a table includes `org_id`, and every foreign
 * key between two of them too (test/distribution.pg.test.ts checks both on the migrated schema).
 *
 * The tables below are not distributed; each says what it becomes and why.
 */
export const GLOBAL_TABLES: Readonly<Record<string, string>> = {
  organizations: 'reference table: small and read everywhere; every distributed table has a foreign key to it',
  server_secrets: 'reference table: platform secrets (the file-link key) every process reads at start',
  scope_settings: 'reference table: one row, the scope rules and window the technicians\' feeds were built with',
  file_folder: 'reference table: one row, where the files are (a local folder\'s id, or the S3 bucket)',
  schema_migrations: 'local to the coordinator: which migrations ran',
  rate_limits: 'local to the coordinator: budgets by token and address, written on every request (a reference table would copy every write to every node)',
};
