-- Files: where an organization's logo is kept, and the platform's own secrets.

alter table organizations add column logo_key text;

-- Secrets the server generates once and every process shares (the key that signs file links,
-- unless FILE_URL_SECRET sets one). Platform-wide, so the one table without org_id.
create table server_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
