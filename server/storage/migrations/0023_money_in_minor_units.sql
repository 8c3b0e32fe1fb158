-- Money columns hold integer minor units of the organization's currency (cents for USD, yen for
-- JPY, fils for KWD), no longer numeric(12,2): a KWD price kept only two of its three decimals,
-- and a JPY amount was reckoned in hundredths. Storage reads them back as decimals at the
-- currency's precision (server/storage/money-sql.ts), so records, GraphQL, CSV and sync documents
-- carry the same numbers as before. Money inside jsonb (quote lines, a customer's service rates)
-- stays the decimal the wire carries.
--
-- The columns are rewritten in place (ALTER ... TYPE), which fires no trigger: the rows keep their
-- change-feed positions, as their documents do not change.
create function minor_units_of(org text, amount numeric) returns bigint language sql stable as $$
  select round(amount * power(10::numeric, currency_exponent(o.currency)))::bigint from organizations o where o.id = org
$$;

alter table quotes
  alter column subtotal type bigint using minor_units_of(org_id, subtotal),
  alter column tax type bigint using minor_units_of(org_id, tax),
  alter column total type bigint using minor_units_of(org_id, total);
alter table inventory_items
  alter column unit_price type bigint using minor_units_of(org_id, unit_price),
  alter column cost_price type bigint using minor_units_of(org_id, cost_price);
alter table customer_quoted_prices
  alter column price type bigint using minor_units_of(org_id, price);

drop function minor_units_of(text, numeric);
