-- A row removed from customers or services (not the soft `_deleted`, a real DELETE: an
-- organization's data being purged) took its search row nowhere: a later search still counted it
-- in totalCount. The search rows now go with their rows.
create function search_rows_forget() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'customers' then
    delete from customer_search s using old_rows o where s.org_id = o.org_id and s.id = o.id;
  else
    delete from service_search s using old_rows o where s.org_id = o.org_id and s.id = o.id;
  end if;
  return null;
end $$;

create trigger customers_search_forget after delete on customers
  referencing old table as old_rows for each statement execute function search_rows_forget();
create trigger services_search_forget after delete on services
  referencing old table as old_rows for each statement execute function search_rows_forget();

delete from customer_search s where not exists (select 1 from customers c where c.org_id = s.org_id and c.id = s.id);
delete from service_search s where not exists (select 1 from services v where v.org_id = s.org_id and v.id = s.id);
