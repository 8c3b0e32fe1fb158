-- Answers to requests sent with an Idempotency-Key header (GraphQL mutations, REST creates), per
-- organization and per the calling token's user. The row is written in the same transaction as the
-- request's writes, so a committed write always has its key, and a retry with the key is answered
-- from here instead of being done again. `request_hash` tells a retry from a different request
-- that reuses the key. Pruned after IDEMPOTENCY_KEY_HOURS (24 by default).
create table idempotency_keys (
  org_id text not null references organizations (id),
  user_id text not null,
  key text not null,
  request_hash text not null,
  -- Null only inside the transaction that claims the key; written before it commits.
  answer jsonb,
  created_at timestamptz not null default now(),
  primary key (org_id, user_id, key)
);
create index idempotency_keys_by_time on idempotency_keys (created_at);
