-- Invoices and payments replicate to devices (shared/sync/rules.ts, scopes.ts): invoices read-only
-- (a technician sees what its customers owe), payments a ledger a technician appends to at the
-- door. Replicated tables carry the change feed's columns and its trigger (0001, 0004), which also
-- stamps updated_at, in place of the plain touch trigger. Each device's feed of them is kept by
-- the scope triggers, generated and installed at start (server/storage/scope-sql.ts).

drop trigger invoices_touch on invoices;
alter table invoices add column _seq bigint, add column _deleted boolean not null default false;
update invoices set _seq = nextval('change_seq');
alter table invoices alter column _seq set not null;
create trigger invoices_change_feed before insert or update on invoices
  for each row execute function change_feed_stamp();
create index invoices_org_seq on invoices (org_id, _seq);

drop trigger payments_touch on payments;
alter table payments add column _seq bigint, add column _deleted boolean not null default false;
update payments set _seq = nextval('change_seq');
alter table payments alter column _seq set not null;
create trigger payments_change_feed before insert or update on payments
  for each row execute function change_feed_stamp();
create index payments_org_seq on payments (org_id, _seq);

-- A payment is never deleted, not even as a tombstone: the ledger's rule covers the sync column too.
create or replace function payments_append_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new._deleted then
    raise exception 'payments are never deleted (reverse the payment instead)' using errcode = 'check_violation';
  end if;
  if (new.customer_id, new.kind, new.amount, new.currency, new.method, new.reference, new.received_at,
      new.invoice_ids, new.reverses_payment_id, new.reason)
     is distinct from
     (old.customer_id, old.kind, old.amount, old.currency, old.method, old.reference, old.received_at,
      old.invoice_ids, old.reverses_payment_id, old.reason) then
    raise exception 'a payment is never edited (reverse it and record another)' using errcode = 'check_violation';
  end if;
  return new;
end $$;
