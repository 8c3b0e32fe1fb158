-- The office's devices hold a window of the company's work (shared/sync/scopes.ts, OFFICE_SCOPE):
-- its one feed is the audience '@office' in scope_rows, kept by the same generated triggers; its
-- window's days are kept here beside the technicians' (SYNC_OFFICE_WINDOW_DAYS).
alter table scope_settings add column office_window_days integer not null default 14;
