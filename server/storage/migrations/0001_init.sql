-- The tables of every resource in shared/resources, and the change feed that sync pulls from.
-- Column lists started from `npm run schema:ddl`; test/schema-agreement.pg.test.ts keeps them in
-- step with the shared definitions.

-- Change feed. Every write to a replicated table takes a per-organization advisory lock before
-- drawing its _seq, and holds it to commit. So within one organization _seq order is commit order,
-- and a pull of `_seq > checkpoint` can never skip a row committed late by a slow transaction.
-- One sequence for all tables gives one ordering across collections (the live stream needs it).
create sequence change_seq;

create function change_feed_stamp() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || new.org_id, 0));
  new._seq := nextval('change_seq');
  -- The server's clock, read after the lock, so updated_at follows _seq within an organization.
  new.updated_at := clock_timestamp();
  if tg_op = 'INSERT' then
    new.created_at := new.updated_at;
  else
    new.created_at := old.created_at;
  end if;
  return new;
end $$;

-- Tables that do not replicate still get a server-set updated_at.
create function touch_updated_at() returns trigger language plpgsql as $$
begin
  new.updated_at := clock_timestamp();
  if tg_op = 'UPDATE' then
    new.created_at := old.created_at;
  end if;
  return new;
end $$;

create table organizations (
  -- Every table has org_id; an organization belongs to itself.
  org_id text not null check (org_id = id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null,
  slug text not null,
  email text,
  phone text,
  website text,
  logo text,
  address jsonb,
  timezone text not null,
  currency text not null,
  settings jsonb not null,
  subscription jsonb,
  accounting_connected boolean not null,
  payment_processor_connected boolean not null,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id),
  unique (id),
  unique (slug)
);

create table users (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null,
  email text,
  role text not null,
  primary key (org_id, id)
);

create table api_tokens (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null,
  user_id text not null,
  last_used_at timestamptz,
  revoked_at timestamptz,
  -- SHA-256 of the token; the token itself is never stored.
  token_hash text not null unique,
  primary key (org_id, id),
  foreign key (org_id, user_id) references users (org_id, id)
);

create table taxes (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null,
  rate double precision not null,
  is_active boolean not null,
  primary key (org_id, id)
);

create table service_types (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  display text not null,
  description text,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table customers (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  first_name text,
  last_name text not null,
  accounting_name text,
  customer_since_date date,
  street_address text,
  city text,
  state text,
  zip_code text,
  billing_address text,
  billing_city text,
  billing_state text,
  billing_zip_code text,
  billing_first_name text,
  billing_last_name text,
  use_address_for_billing boolean,
  latitude double precision,
  longitude double precision,
  phone_number text,
  alternate_phone_number text,
  tertiary_phone_number text,
  fourth_phone_number text,
  phone_number_label text,
  alternate_phone_number_label text,
  tertiary_phone_number_label text,
  fourth_phone_number_label text,
  phone_number_enable_sms boolean,
  alternate_phone_number_enable_sms boolean,
  tertiary_phone_number_enable_sms boolean,
  fourth_phone_number_enable_sms boolean,
  email text,
  alternate_email text,
  tertiary_email text,
  fourth_email text,
  billing_email text,
  billing_cc_email text,
  status text,
  tags text[],
  payment_method text,
  billing_method text,
  contact_method text,
  payment_type text,
  billing_frequency text,
  report_notification text,
  zone text,
  pool jsonb,
  bodies_of_water jsonb,
  service jsonb,
  sales_notes text,
  notes text,
  ready_for_invoice boolean,
  is_commercial boolean,
  payment_processor_id text,
  accounting_id text,
  custom_fields jsonb,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table customer_quoted_prices (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  customer_id text not null,
  type_id text,
  price numeric(12,2) not null,
  primary key (org_id, id)
);

create table appointments (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  customer_id text not null,
  technician_id text,
  type_id text,
  identifier_cuid text,
  recurring_rule_id text,
  start_time timestamptz not null,
  end_time timestamptz,
  status text not null,
  notes text,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table services (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  reference text,
  customer_id text,
  type_id text,
  new_technician_id text,
  new_secondary_technician_id text,
  appointment_id text,
  appointment_identifier_cuid text,
  appointment_recurring_rule_id text,
  start_time timestamptz,
  end_time timestamptz,
  return_appointment_date timestamptz,
  billing_status text,
  flag text,
  vacuum text,
  water_level text,
  water_condition text,
  water_color text,
  photos jsonb not null default '[]',
  notes text,
  chemical_readings jsonb,
  date_emailed timestamptz,
  date_texted timestamptz,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table quotes (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  number text not null,
  title text not null,
  customer_id text not null,
  status text not null,
  subtotal numeric(12,2) not null,
  tax numeric(12,2) not null,
  total numeric(12,2) not null,
  tax_id text,
  valid_until timestamptz,
  accepted_at timestamptz,
  line_items jsonb not null default '[]',
  notes text,
  terms text,
  photos jsonb not null default '[]',
  pdf_key text,
  created_by_id text,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table inventory_locations (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null,
  address text,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table inventory_items (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  name text not null,
  sku text,
  description text,
  category text not null,
  unit_price numeric(12,2) not null,
  cost_price numeric(12,2),
  quantity integer not null default 0,
  reorder_point integer,
  location_id text,
  unit text,
  accounting_id text,
  is_active boolean not null,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table stock_levels (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  item_id text not null,
  location_id text not null,
  quantity integer not null,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create table stock_movements (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  item_id text not null,
  location_id text not null,
  to_location_id text,
  delta integer not null,
  reason text not null,
  service_id text,
  note text,
  created_by_id text,
  _seq bigint not null,
  _deleted boolean not null default false,
  primary key (org_id, id)
);

create trigger organizations_change_feed before insert or update on organizations
  for each row execute function change_feed_stamp();
create index organizations_org_seq on organizations (org_id, _seq);

create trigger users_touch before insert or update on users
  for each row execute function touch_updated_at();

create trigger api_tokens_touch before insert or update on api_tokens
  for each row execute function touch_updated_at();

create trigger taxes_touch before insert or update on taxes
  for each row execute function touch_updated_at();

create trigger service_types_change_feed before insert or update on service_types
  for each row execute function change_feed_stamp();
create index service_types_org_seq on service_types (org_id, _seq);

create trigger customers_change_feed before insert or update on customers
  for each row execute function change_feed_stamp();
create index customers_org_seq on customers (org_id, _seq);

create trigger customer_quoted_prices_touch before insert or update on customer_quoted_prices
  for each row execute function touch_updated_at();

create trigger appointments_change_feed before insert or update on appointments
  for each row execute function change_feed_stamp();
create index appointments_org_seq on appointments (org_id, _seq);

create trigger services_change_feed before insert or update on services
  for each row execute function change_feed_stamp();
create index services_org_seq on services (org_id, _seq);

create trigger quotes_change_feed before insert or update on quotes
  for each row execute function change_feed_stamp();
create index quotes_org_seq on quotes (org_id, _seq);

create trigger inventory_locations_change_feed before insert or update on inventory_locations
  for each row execute function change_feed_stamp();
create index inventory_locations_org_seq on inventory_locations (org_id, _seq);

create trigger inventory_items_change_feed before insert or update on inventory_items
  for each row execute function change_feed_stamp();
create index inventory_items_org_seq on inventory_items (org_id, _seq);

create trigger stock_levels_change_feed before insert or update on stock_levels
  for each row execute function change_feed_stamp();
create index stock_levels_org_seq on stock_levels (org_id, _seq);

create trigger stock_movements_change_feed before insert or update on stock_movements
  for each row execute function change_feed_stamp();
create index stock_movements_org_seq on stock_movements (org_id, _seq);
