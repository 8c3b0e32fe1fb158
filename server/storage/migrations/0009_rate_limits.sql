-- Request budgets per token, shared by every server process on one database. The columns are the
-- ones rate-limiter-flexible's PostgreSQL store reads and writes (key, points, expire in epoch
-- ms); it prunes expired rows itself. Unlogged: a budget is worth no WAL, and a crash that
-- empties the table only forgives a minute of requests.
create unlogged table rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
