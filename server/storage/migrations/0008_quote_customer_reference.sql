-- A quote names a customer of its own organization, and the database holds to it (customers are
-- only ever soft-deleted, so the row a quote names stays). Until sync checked references on
-- updates, a pushed quote could name a customer that did not exist, and every read of the
-- organization's quotes then failed; such a quote gets a placeholder customer, deleted, so it
-- stays readable and shows that its customer is gone.
insert into customers (org_id, id, first_name, last_name, _deleted)
select distinct q.org_id, q.customer_id, null, 'Unknown customer', true
  from quotes q
 where not exists (select 1 from customers c where c.org_id = q.org_id and c.id = q.customer_id);

alter table quotes
  add constraint quotes_customer_fk foreign key (org_id, customer_id) references customers (org_id, id);
