-- The local folder this database's files are kept in, when they are kept in a folder (no S3): the
-- id written into the folder itself (.pool-folder-id). A server process whose folder holds another
-- id, or none, is not using the folder the stored files are in, and refuses to start (several
-- processes on one database with a folder each answered 404 for each other's files).
create table file_folder (
  id integer primary key default 1 check (id = 1),
  folder_id text not null,
  created_at timestamptz not null default now()
);
