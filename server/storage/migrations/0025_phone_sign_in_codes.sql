-- One-time codes that sign a technician's phone in: the office makes one (its QR code), the phone
-- trades it for a token of its own (server/operations/README-auth.md). Only the SHA-256 of a code
-- is kept. A code is redeemed by the one update that finds it unredeemed and unexpired, in the
-- transaction that makes the phone's token, so of two phones racing with one code one wins.
-- Rows are pruned a day after they expire (as the organization makes new codes).
--
-- Looked up by hash alone: a phone redeeming a code is not signed in, so its organization is not
-- known yet. On a distributed store this small, short-lived table is a reference table.
create table phone_sign_in_codes (
  org_id text not null references organizations (id),
  id text not null,
  code_hash text not null,
  -- The technician the phone signs in as, and who in the office made the code.
  user_id text not null,
  created_by text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  redeemed_at timestamptz,
  -- The token the code was traded for (a phone's token, revocable alone).
  token_id text,
  primary key (org_id, id),
  foreign key (org_id, user_id) references users (org_id, id)
);
create unique index phone_sign_in_codes_by_hash on phone_sign_in_codes (code_hash);
create index phone_sign_in_codes_by_expiry on phone_sign_in_codes (org_id, expires_at);
