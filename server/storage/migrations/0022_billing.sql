-- Billing: invoices made on the server from the work recorded, and payments applied to them
-- (server/operations/billing/README.md). Money is integer minor units of the organization's
-- currency (0023 moves the older money columns there too).

-- Digits after the point in an ISO 4217 currency (USD 2, JPY 0, KWD 3), as dinero.js lists them
-- (shared/money.ts; test/money.pg.test.ts holds the two to each other). Unknown codes count as 2.
create function currency_exponent(code text) returns integer language sql immutable parallel safe as $$
  select case
    when code in ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') then 3
    when code in ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') then 0
    when code in ('CLF', 'UYW') then 4
    else 2
  end
$$;

create table invoices (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  number text,
  customer_id text not null,
  status text not null check (status in ('DRAFT', 'OPEN', 'PAID', 'VOID')),
  origin text not null check (origin in ('GENERATED', 'QUOTE', 'MANUAL')),
  period_start date,
  period_end date,
  currency text not null,
  subtotal bigint not null,
  tax bigint not null,
  total bigint not null,
  amount_paid bigint not null,
  balance_due bigint not null,
  tax_rounding text not null check (tax_rounding in ('PER_INVOICE', 'PER_LINE')),
  issue_date date,
  due_date date,
  notes text,
  accounting_id text,
  quote_id text,
  replaces_invoice_id text,
  finalized_at timestamptz,
  sent_at timestamptz,
  voided_at timestamptz,
  void_reason text,
  created_by_id text,
  primary key (org_id, id),
  foreign key (org_id, customer_id) references customers (org_id, id),
  check (period_end >= period_start),
  check (balance_due = total - amount_paid),
  -- A number is given when a draft is finalized, and only then.
  check ((status = 'DRAFT') = (number is null))
);
create unique index invoices_number on invoices (org_id, number) where number is not null;
-- One generated draft per customer and period: runs at once (or again) add to the same draft.
create unique index invoices_generated_draft on invoices (org_id, customer_id, period_start, period_end)
  where status = 'DRAFT' and origin = 'GENERATED';
create index invoices_newest on invoices (org_id, created_at desc, id desc);
create index invoices_by_customer on invoices (org_id, customer_id, created_at desc, id desc);
create index invoices_open_by_due_date on invoices (org_id, due_date) where status = 'OPEN';
create trigger invoices_touch before insert or update on invoices
  for each row execute function touch_updated_at();

create table invoice_lines (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  invoice_id text not null,
  position integer not null,
  source_type text not null check (source_type in ('VISIT', 'STOCK_MOVEMENT', 'QUOTE_LINE', 'FLAT_RATE', 'MANUAL')),
  source_id text,
  service_id text,
  date date,
  item_id text,
  description text not null,
  quantity double precision not null,
  unit_price bigint not null,
  amount bigint not null,
  tax_id text,
  tax_rate double precision not null,
  tax_amount bigint,
  released boolean not null default false,
  primary key (org_id, id),
  foreign key (org_id, invoice_id) references invoices (org_id, id) on delete cascade,
  check ((source_type = 'MANUAL') = (source_id is null))
);
-- Nothing is billed twice: at most one live line per billed source, whatever runs twice or at
-- once. A voided invoice's lines are released, so their work can be billed again.
create unique index invoice_lines_billed_once on invoice_lines (org_id, source_type, source_id)
  where source_id is not null and not released;
create index invoice_lines_by_invoice on invoice_lines (org_id, invoice_id, position);
create index invoice_lines_by_service on invoice_lines (org_id, service_id) where service_id is not null;
create trigger invoice_lines_touch before insert or update on invoice_lines
  for each row execute function touch_updated_at();

create table payments (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  customer_id text not null,
  kind text not null check (kind in ('PAYMENT', 'REVERSAL')),
  amount bigint not null,
  currency text not null,
  method text not null check (method in ('CASH', 'CHECK', 'CARD', 'ACH', 'OTHER')),
  reference text,
  received_at timestamptz not null,
  invoice_ids text[],
  reverses_payment_id text,
  reason text,
  payment_processor_id text,
  accounting_id text,
  created_by_id text,
  primary key (org_id, id),
  foreign key (org_id, customer_id) references customers (org_id, id),
  check ((kind = 'PAYMENT' and amount > 0 and reverses_payment_id is null)
      or (kind = 'REVERSAL' and amount < 0 and reverses_payment_id is not null))
);
-- A payment is reversed at most once.
create unique index payments_reversed_once on payments (org_id, reverses_payment_id) where reverses_payment_id is not null;
create index payments_by_customer on payments (org_id, customer_id, received_at, id);
create index payments_newest on payments (org_id, received_at desc, id desc);
create trigger payments_touch before insert or update on payments
  for each row execute function touch_updated_at();

create table payment_applications (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  payment_id text not null,
  invoice_id text not null,
  amount bigint not null check (amount <> 0),
  applied_at timestamptz not null,
  primary key (org_id, id),
  foreign key (org_id, payment_id) references payments (org_id, id),
  foreign key (org_id, invoice_id) references invoices (org_id, id)
);
create index payment_applications_by_invoice on payment_applications (org_id, invoice_id);
create index payment_applications_by_payment on payment_applications (org_id, payment_id);
create trigger payment_applications_touch before insert on payment_applications
  for each row execute function touch_updated_at();

-- The ledger is append-only, in the database too: a payment's money, customer and applications
-- never change and nothing is deleted; only its accounting link fields may be filled in later.
create function payments_append_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
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
create trigger payments_append_only before update or delete on payments
  for each row execute function payments_append_only();

create function payment_applications_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'payment applications are never changed or deleted' using errcode = 'check_violation';
end $$;
create trigger payment_applications_append_only before update or delete on payment_applications
  for each row execute function payment_applications_append_only();

-- Links that open an invoice without signing in (the email's link): only the token's hash is
-- kept, as for visit reports.
create table invoice_links (
  org_id text not null references organizations (id),
  id text not null,
  invoice_id text not null,
  token_hash text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  primary key (org_id, id)
);
create unique index invoice_links_by_token on invoice_links (org_id, token_hash);
create index invoice_links_by_invoice on invoice_links (org_id, invoice_id);

-- What the month's run did for each customer it looked at: the draft it filled, or why it billed
-- nothing. Written in the chunk's transaction, so a resumed run records each customer once; the
-- run's result file is read from here.
create table billing_run_results (
  org_id text not null references organizations (id),
  operation_id text not null,
  customer_id text not null,
  outcome text not null check (outcome in ('BILLED', 'SKIPPED')),
  reason text,
  invoice_id text,
  lines integer not null default 0,
  amount bigint not null default 0,
  created_at timestamptz not null default now(),
  primary key (org_id, operation_id, customer_id)
);

-- Invoice emails in the outbox: the invoice whose PDF goes with it (made when it is sent), and the
-- customer's billing CC address.
alter table outbox add column invoice_id text;
alter table outbox add column cc text;
create index outbox_invoices_due on outbox (next_attempt_at) where status = 'PENDING' and invoice_id is not null;

-- A customer's own tax (null: the organization's default).
alter table customers add column tax_id text;

-- billingMethod takes PER_VISIT or MONTHLY_FLAT, billingFrequency MONTHLY (null: the defaults).
-- Earlier free text is read as the value it spells, and dropped when it spells none.
update customers set billing_method = case
    when upper(replace(trim(billing_method), ' ', '_')) in ('PER_VISIT', 'MONTHLY_FLAT') then upper(replace(trim(billing_method), ' ', '_'))
  end
 where billing_method not in ('PER_VISIT', 'MONTHLY_FLAT');
update customers set billing_frequency = case when upper(trim(billing_frequency)) = 'MONTHLY' then 'MONTHLY' end
 where billing_frequency <> 'MONTHLY';
