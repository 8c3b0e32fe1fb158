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
  event_settings: 'reference table: one row, the hash of the event triggers installed',
  file_folder: 'reference table: one row, where the files are (a local folder\'s id, or the S3 bucket)',
  schema_migrations: 'local to the coordinator: which migrations ran',
  phone_sign_in_codes:
    "local to the coordinator: a phone's one-time sign-in code is looked up by its hash before its organization is known (the phone is not signed in yet); a few rows per organization, pruned a day after they expire. On Citus its foreign key to users goes (a local table cannot reference a distributed one): the code's user is read again, by (org_id, id), in the transaction that makes the phone's token",
  rate_limits: 'local to the coordinator: budgets by token and address, written on every request (a reference table would copy every write to every node)',
};

/**
 * Statements that span organizations on purpose, keyed `<file in server/storage> <function>`, with
 * what each does on a distributed store and why it may stay so. Every other statement names the
 * caller's organization and is routed to the one node holding it; a new spanning statement is
 * added here with its reason (test/distribution.pg.test.ts checks each is still where it says).
 */
export const SPANNING_STATEMENTS: Readonly<Record<string, string>> = {
  'tokens.ts findTokenOwnerByHash':
    'a token issued before tokens carried their organization is found by its hash alone: a question to every shard, each with an index on the hash; issuing new tokens retires it',
  'tokens.ts liveTokenHashes':
    'which tokens exist, read by a process only while an address floods it with bad tokens (once in full, then those created lately, at most once a second, by the index on created_at): a question to every shard, each answering from its own index, rarely asked',
  'sync-receipts.ts pruneReceipts':
    'hourly, in every process: each shard deletes its own old receipts in parallel; nothing waits on it, and per organization it would be as many statements for the same work',
  'idempotency-keys.ts pruneKeys':
    "hourly, in every process, pruneReceipts' case: each shard deletes its own expired keys by its index on created_at, in parallel; per organization it would be one statement per organization every hour, and an index led by org_id, for the same rows",
  'bulk-operations.ts claimNextOperation':
    'the oldest queued job of any organization, for update skip locked: on Citus two steps, a read of the oldest (org_id, id) across shards, then a claim routed by (org_id, id) that requires it still queued',
  'bulk-operations.ts bulkQueueStats': 'the queue gauges on /metrics: an aggregate over every shard, which Citus runs as is',
  'visit-reports.ts claimSettledReports': "the settled reports of any organization, every half second per process: the bulk claim's case, and its two steps on Citus",
  'outgoing-messages.ts claimDueReportMessages': "the report messages due of any organization, every half second per process: the bulk claim's case, and its two steps on Citus",
  'outgoing-messages.ts claimDueNotices': "the notices to organizations due (an endpoint disabled), every WEBHOOK_POLL_MS per process: the bulk claim's case, and its two steps on Citus",
  'events.ts pruneEvents':
    "hourly, in every process, pruneReceipts' case: each shard deletes its own events older than 30 days by its BRIN index on occurred_at, in parallel",
  'webhook-deliveries.ts pruneWebhookLog': "hourly, in every process, pruneEvents' case for delivery attempts and failed deliveries older than 30 days",
  'webhook-deliveries.ts vacuumDeliveryQueue': 'hourly, in every process: a VACUUM of the delivery queue, which Citus propagates to every shard of the table',
  'webhook-deliveries.ts claimDueAttempts':
    "the webhook retries due of any organization, at every wake-up and every WEBHOOK_POLL_MS per process: the bulk claim's case, and its two steps on Citus (a read of the due keys across shards, then a claim routed by key that requires each still due)",
  'webhook-deliveries.ts organizationsBehind':
    'every WEBHOOK_POLL_MS per process, the organizations whose endpoints are behind their events (a missed wake-up): a question to every shard, each answering from its own endpoints and events; the fan-out that follows is per organization',
};
