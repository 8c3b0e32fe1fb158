-- Why a row is in a device's scope when other rows need it (server/storage/README-scopes.md): a
-- customer is held while a held, live visit (or, in the office's scope, quote) names it. Kept as
-- counts, so that a write asks one keyed question instead of reading every visit of the customer.
--
-- `needs`: on the entry of a needing row, the id of the row it needs while the entry is present
-- and the row live (null otherwise): what that entry is counted for, so taking it back is exact.
alter table scope_rows add column needs text;

-- Per audience and needed row, how many of the audience's entries need it (the entries whose
-- `needs` names it). A row no entry needs has no line.
create table scope_needs (
  org_id text not null references organizations (id),
  collection text not null,
  row_id text not null,
  audience text not null,
  holders integer not null,
  primary key (org_id, collection, row_id, audience)
);

-- From what the store holds, under the rules as they stand here: a visit needs its customer in
-- every scope, a quote its customer in the office's. The generated triggers installed at start
-- (their text changed, so they are installed again) rebuild every organization's scopes, which
-- recounts these from scratch.
update scope_rows s set needs = t.customer_id
  from services t
 where t.org_id = s.org_id and t.id = s.row_id and s.collection = 'services' and s.present and not t._deleted and t.customer_id is not null;
update scope_rows s set needs = t.customer_id
  from quotes t
 where t.org_id = s.org_id and t.id = s.row_id and s.collection = 'quotes' and s.audience = '@office' and s.present and not t._deleted and t.customer_id is not null;
insert into scope_needs (org_id, collection, row_id, audience, holders)
select org_id, 'customers', needs, audience, count(*) from scope_rows where needs is not null group by org_id, needs, audience;
