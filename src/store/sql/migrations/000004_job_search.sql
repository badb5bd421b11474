-- The dashboard's jobs table filters all applications' jobs by one column and shows the newest first: an index per
-- filter, ending in id, gives the 50 newest matches (and their count) without reading the others.
CREATE INDEX jobs_by_status ON jobs (status, id);
CREATE INDEX jobs_by_workflow ON jobs (workflow, id);
CREATE INDEX jobs_by_batch ON jobs (batch_name, id);

-- The worker that started a job (its lease holder; the embedded queue also has it in job_queue.lease_owner, pg-boss
-- keeps none), so the dashboard can count running jobs per worker node in both modes.
ALTER TABLE jobs ADD COLUMN worker_id TEXT;
CREATE INDEX jobs_running_by_worker ON jobs (worker_id) WHERE status = 'STARTED';

-- dialect: sqlite
-- Case-insensitive substring search of job names: an FTS5 trigram index. Its rows are keyed by job_name_keys.key,
-- an INTEGER PRIMARY KEY, not by jobs.rowid, which VACUUM may renumber (jobs has a TEXT primary key).
CREATE TABLE job_name_keys (
  key INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE job_names USING fts5(name, tokenize = 'trigram');
CREATE TRIGGER job_names_on_insert AFTER INSERT ON jobs BEGIN
  INSERT INTO job_name_keys (job_id) VALUES (new.id);
  INSERT INTO job_names (rowid, name) VALUES ((SELECT key FROM job_name_keys WHERE job_id = new.id), new.name);
END;
CREATE TRIGGER job_names_on_rename AFTER UPDATE OF name ON jobs BEGIN
  UPDATE job_names SET name = new.name WHERE rowid = (SELECT key FROM job_name_keys WHERE job_id = new.id);
END;
CREATE TRIGGER job_names_on_delete AFTER DELETE ON jobs BEGIN
  DELETE FROM job_names WHERE rowid = (SELECT key FROM job_name_keys WHERE job_id = old.id);
  DELETE FROM job_name_keys WHERE job_id = old.id;
END;
INSERT INTO job_name_keys (job_id) SELECT id FROM jobs ORDER BY id;
INSERT INTO job_names (rowid, name) SELECT k.key, j.name FROM job_name_keys k JOIN jobs j ON j.id = k.job_id;

-- dialect: postgres
-- The same search on Postgres: a trigram GIN index (pg_trgm ships with PostgreSQL, and is a trusted extension since
-- PostgreSQL 13: the database's owner may create it) on the expression the query compares.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX jobs_by_name_trigrams ON jobs USING gin (lower(name) gin_trgm_ops);
