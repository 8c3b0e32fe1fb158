import type { SettingName } from './config.js';

/**
 * What each setting means, in the words of server/README.md's configuration table, which
 * `npm run docs:config` writes from this and config.ts's defaults (test/docs.test.ts fails when
 * the table differs). Keyed by every setting: a setting added to config.ts without a line here
 * does not type-check.
 */
export interface SettingHelp {
  /** What it does, in Markdown (links are to sections of server/README.md or other docs). */
  meaning: string;
  /** The default column for a setting without a default value (unset: `unset`). */
  whenUnset?: string;
}

export const SETTING_HELP: Readonly<Record<SettingName, SettingHelp>> = {
  HOST: { meaning: 'Interface to listen on (`0.0.0.0` to accept outside connections)' },
  PORT: { meaning: 'Port (`0` picks a free one; the chosen URL is printed)' },
  DATA_DIR: { meaning: 'Folder of the embedded store and of local files (locked to one process at a time)' },
  DATABASE_URL: { meaning: '`postgres://user@host:5432/db`: use this PostgreSQL instead of the embedded store' },
  PGLITE_SHARED_BUFFERS_MB: {
    meaning:
      "Buffer cache of the embedded store. It lives in WebAssembly memory, which never shrinks: PGlite's own default, 128, holds about 110 MB more once full and syncs no faster; searches that gather thousands of matches run faster with it",
  },
  UNSAFE_NO_FSYNC: {
    meaning:
      '`true`: acknowledge writes before they are on disk (the embedded store skips its syncs, local files are not synced). For throwaway development stores only: a power cut or an OS crash can lose acknowledged writes and leave the store unreadable; see [Durability](#durability)',
  },
  EMBEDDED_STORE_MAX_TECHNICIANS: {
    meaning:
      "Technicians with a phone (a TECHNICIAN token unrevoked and used within `TOKEN_IDLE_DAYS`), all organizations together, past which the embedded store is outgrown: the server logs a warning at start (or when its hourly check finds it) and `/readyz` lists it under `warnings`, still ready. Unused on PostgreSQL; see [Choosing the store](#choosing-the-store)",
  },
  PLATFORM_ADMIN_TOKEN: { meaning: 'Enables `POST /admin/organizations` (16+ characters); unset, the route is absent' },
  LOG_LEVEL: { meaning: '`fatal` `error` `warn` `info` `debug` `trace` `silent`; logs are JSON lines on stdout' },
  BODY_LIMIT_BYTES: {
    meaning:
      'Largest JSON/GraphQL request body (larger: 413 `PAYLOAD_TOO_LARGE`; a body whose declared length is larger is refused at once, unread, see [Limits](#limits))',
  },
  SEED_DEMO_ORG: { meaning: 'Create the demo organization when the store is empty' },
  SHUTDOWN_GRACE_MS: { meaning: 'On SIGTERM, how long in-flight requests may take before connections are closed' },
  S3_ENDPOINT: { meaning: 'MinIO/S3 host (e.g. `minio.internal`); unset, files live in `DATA_DIR/blobs`' },
  S3_PORT: { meaning: 'MinIO/S3 port (MinIO usually `9000`)', whenUnset: "the scheme's" },
  S3_USE_SSL: { meaning: '`false` for plain HTTP to MinIO' },
  S3_ACCESS_KEY: { meaning: 'Required when `S3_ENDPOINT` is set' },
  S3_SECRET_KEY: { meaning: 'Required when `S3_ENDPOINT` is set (masked by `npm run config`)' },
  S3_BUCKET: { meaning: 'Created at start when missing; the database remembers it (see [Several processes](#several-processes))' },
  S3_REGION: { meaning: 'Region for signing and bucket creation' },
  MAX_UPLOAD_BYTES: {
    meaning: 'Largest upload (20 MB); larger: 413 and nothing stored (a body declaring more than this plus 128 KB of form is refused at once, unread)',
  },
  FILE_URL_TTL_SECONDS: { meaning: 'How long a signed file link works' },
  FILE_URL_SECRET: {
    meaning: 'Key that signs file links (32+ characters). Unset, one is generated once and kept in the database, shared by every process',
    whenUnset: 'generated',
  },
  PUBLIC_URL: {
    meaning:
      "Base of file links (e.g. `https://api.example.com` behind a proxy), and of the links in visit reports' emails and texts. Unset: the request's host for file links, and for reports the address this process listens on, which a customer can rarely reach: set it when reports are sent",
    whenUnset: 'the request\'s host',
  },
  SYNC_SERVICE_WINDOW_DAYS: {
    meaning:
      "Days of past visits and stock movements a technician's device holds (future visits always; see [What a device holds](../shared/sync/README.md#what-a-device-holds)). Kept in the store: a start with another value recomputes every technician's scope once",
  },
  SYNC_OFFICE_WINDOW_DAYS: {
    meaning:
      "Days of past visits and stock movements, and of customers and quotes changed, the office's devices (ADMIN, OFFICE, API) hold; older work is read through GraphQL. Kept in the store like the technicians'",
  },
  SYNC_HEARTBEAT_MS: {
    meaning:
      'Comment line on idle sync streams, so proxies keep them open; announced to clients, which take a stream silent for 2.5 heartbeats for dead (so a device whose stream died without a word finds out within 10 s)',
  },
  SYNC_RECEIPT_DAYS: { meaning: 'How long the server remembers the change ids of applied pushes (a repeat of one changes nothing); pruned hourly' },
  SYNC_MIN_PROTOCOL_VERSION: {
    meaning:
      'The oldest sync protocol version served (at most this server\'s own): an app that speaks an older one, or names none (version 0), is answered 426 `VERSION_NOT_SUPPORTED` before anything is written, keeps its changes and is told to update. Raise it only once the apps have updated; see [the protocol\'s versions](../shared/sync/README.md#versions)',
  },
  IDEMPOTENCY_KEY_HOURS: {
    meaning: "How long a request's `Idempotency-Key` and its answer are kept (at least 24; see [Retrying writes](#retrying-writes-idempotency-key)); pruned hourly",
  },
  SYNC_BODY_LIMIT_BYTES: { meaning: 'Largest sync push (and bulk-operation) body' },
  SMTP_URL: {
    meaning: 'nodemailer SMTP URL (`smtp://user:pass@mail.example.com:587`) for bulk emails and visit reports; unset, emails stay in the outgoing messages',
  },
  EMAIL_FROM: { meaning: "Sender of bulk emails; visit reports use its address under the organization's `emailFromName`" },
  SMS_WEBHOOK_URL: {
    meaning: 'Bulk texts and report texts are POSTed here as `{to, body, messageId}` (30 s deadline); unset, texts stay in the outgoing messages',
  },
  BULK_WORKER: { meaning: 'Run the bulk-operation worker and the visit-report worker in this process' },
  BULK_CHUNK_SIZE: { meaning: 'Items per chunk (one transaction each)' },
  BULK_POLL_MS: { meaning: 'How often an idle worker looks for jobs (a job started through this process wakes it at once)' },
  BULK_STALE_MS: { meaning: "A running job whose worker has been silent this long is taken over by another" },
  VISIT_REPORT_DELAY_SECONDS: {
    meaning:
      "A completed visit's report is sent once the visit has gone this long without a change, so a visit completed and corrected a minute later is reported once, as it finally is (see [Visit reports](#visit-reports))",
  },
  REPORT_LINK_DAYS: { meaning: "How long the link in a report's email or text (the report page and its photos) works, unless the office revokes it first" },
  INVOICE_LINK_DAYS: { meaning: "How long the link in an invoice's email (the invoice's page and its PDF) works, unless the office revokes it first (see [Invoices](operations/billing/README.md#delivery))" },
  INVOICE_PDF_WORKERS: {
    meaning:
      "Threads that make the PDFs attached to invoice emails, beside the thread answering requests, so a month's emails do not slow the API (see [Invoices](operations/billing/README.md#delivery)); each holds its parsed fonts (tens of MB) and ends after a minute idle",
    whenUnset: 'one per core but one, at most 4 (1 on 2 cores)',
  },
  CORS_ORIGINS: {
    meaning:
      'Comma list of origins whose browser apps may call the API (`https://office.example.com,http://127.0.0.1:5173`; `*` for any). Unset: no cross-origin access. Tokens travel as `Authorization: Bearer`, never cookies, so credentials are never allowed; preflights are cached 2 hours',
  },
  COMPRESSION: { meaning: 'gzip / brotli by `Accept-Encoding` (`false` when a proxy in front compresses)' },
  REQUEST_TIMEOUT_MS: {
    meaning:
      "A request unanswered after this gets `503 TIMEOUT`; on PostgreSQL also each SQL statement's `statement_timeout` (migrations are exempt). A body still arriving at the deadline is the client's slow link: the request gets the full time again once it is in. Sync streams are exempt",
  },
  METRICS_TOKEN: { meaning: '`GET /metrics` asks for `Authorization: Bearer <METRICS_TOKEN>` (16+ characters); unset, `/metrics` is open' },
  RATE_LIMIT_PER_MINUTE: {
    meaning: 'Requests per token and minute for GraphQL and REST (`0`: unlimited); over it `429 RATE_LIMITED` with `Retry-After`. Shared by every process on one database',
  },
  SYNC_RATE_LIMIT_PER_MINUTE: { meaning: 'The separate budget of sync pulls, pushes and stream opens per token (an initial sync is hundreds of requests)' },
  SYNC_MAX_STREAMS_PER_TOKEN: {
    meaning:
      "Open sync streams one token may hold in one process; one more closes the token's oldest (a device reconnecting after its connection died silently would otherwise be refused until TCP gave up on the dead one, some 15 minutes later)",
  },
  GRAPHQL_MAX_DEPTH: { meaning: "Deepest selection nesting a query may have (introspection's own depth excepted, its cycles refused by graphql-js)" },
  GRAPHQL_MAX_COST: { meaning: 'Most records a query may ask for (see [Limits](#limits))' },
  AUTH_FAILURES_PER_MINUTE: {
    meaning:
      'New failed authentications (an unknown token, a wrong `METRICS_TOKEN` or platform token) one client address may make in a minute; past that, that address gets `429 RATE_LIMITED` with `Retry-After` for any credential that cannot be valid, before any lookup, until the minute is over, while a token that may be valid is still checked and served (`0`: unlimited). Counted in the store, so by every process. See [server/transports/http/README.md](transports/http/README.md)',
  },
  TOKEN_IDLE_DAYS: {
    meaning:
      'Days a TECHNICIAN or OFFICE token may go unused before it stops working (`401` with reason `expired`; the app then keeps only its unsynced work); ADMIN and API tokens do not expire. See [operations/README-auth.md](operations/README-auth.md)',
  },
  PHONE_SIGN_IN_CODE_MINUTES: {
    meaning: "Minutes a phone sign-in code (the office's QR code) works, once; at most 60. See [operations/README-auth.md](operations/README-auth.md)",
  },
  WEBHOOK_ALLOW_HTTP: { meaning: 'Accept `http://` webhook endpoints; `false`: `https` only. For development only (see [operations/events/README.md](operations/events/README.md))' },
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: {
    meaning:
      'Deliver webhooks to loopback, private, link-local, unique-local, CGNAT and metadata addresses; `false`: such an address is refused at every attempt, after the name is resolved and before any connection. For development and tests only',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    meaning:
      'The waits before each retry of an undelivered webhook, after the first attempt (`ms`, `s`, `m`, `h`, `d`; a bare number is seconds): about three days by default; its length is the number of retries. A test or development setup shortens it',
  },
  WEBHOOK_TIMEOUT_MS: { meaning: 'A webhook attempt not answered with a 2xx within this fails (the whole attempt, its answer read to at most 64 KB)' },
  WEBHOOK_CONNECT_TIMEOUT_MS: { meaning: "A webhook attempt whose connection is not made within this fails" },
  WEBHOOK_DISABLE_AFTER_HOURS: { meaning: 'An endpoint whose attempts have all failed for this long is disabled, and its organization told (the office app and an email)' },
  WEBHOOK_POLL_MS: { meaning: 'How often an idle webhook worker looks for due retries and missed events (a new event wakes it at once)' },
  WEBHOOK_CONCURRENCY: { meaning: 'Webhook attempts in flight at once per process' },
  TRUST_PROXY: {
    meaning:
      "Whose `X-Forwarded-For` to believe for the client's address (logs, per-address limits) and `X-Forwarded-Proto` (file links): `false` (nobody's), a number of proxy hops, or a comma list of proxy addresses and subnets (`10.0.0.5`, `10.0.0.0/8`) and the names `loopback`, `linklocal`, `uniquelocal`. The default believes a proxy on this machine; `true` believes anyone, which lets any client pick its own address. See [Behind a proxy](#behind-a-proxy)",
  },
};
