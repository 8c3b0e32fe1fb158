-- Tokens found by their organization and hash. `unique (token_hash)` alone could not be kept on a
-- distributed PostgreSQL (Citus requires every unique constraint of a table distributed by org_id
-- to include org_id), and a lookup by hash alone cannot be routed to the one shard that holds the
-- token. Tokens issued from now on carry their organization (pst_<org>_<secret>) and are found by
-- (org_id, token_hash); tokens issued before are still found by hash alone (the plain index
-- below), a lookup every shard answers.
alter table api_tokens drop constraint api_tokens_token_hash_key;
alter table api_tokens add constraint api_tokens_org_hash unique (org_id, token_hash);
create index api_tokens_by_hash on api_tokens (token_hash);
