-- Linking records: a connector (accounting, payment processor) sets its own id on our records and
-- finds them by it (the accountingId / paymentProcessorId filters of the lists), so a retried run
-- updates what it linked instead of making another. Partial indexes: most records carry no link,
-- and they cost those rows nothing.
create index customers_by_accounting_id on customers (org_id, accounting_id) where accounting_id is not null;
create index customers_by_payment_processor_id on customers (org_id, payment_processor_id) where payment_processor_id is not null;
create index inventory_items_by_accounting_id on inventory_items (org_id, accounting_id) where accounting_id is not null;
create index invoices_by_accounting_id on invoices (org_id, accounting_id) where accounting_id is not null;
create index payments_by_accounting_id on payments (org_id, accounting_id) where accounting_id is not null;
create index payments_by_payment_processor_id on payments (org_id, payment_processor_id) where payment_processor_id is not null;
