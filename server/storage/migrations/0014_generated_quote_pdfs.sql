-- The PDF last generated for each quote (object storage holds the bytes, keyed by the quote's
-- content hash). Kept so that a newer PDF of a quote removes the one it replaces; a quote's PDF is
-- generated when first fetched, not when the quote is written.
create table quote_pdfs (
  org_id text not null references organizations (id),
  quote_id text not null,
  content_hash text not null,
  key text not null,
  size integer not null,
  generated_at timestamptz not null default now(),
  primary key (org_id, quote_id)
);
