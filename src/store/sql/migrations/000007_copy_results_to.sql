-- POST /job's copyResultsTo (output name → URL, as JSON): on success those outputs are PUT there, not kept.
ALTER TABLE jobs ADD COLUMN copy_results_to TEXT;

-- The retention sweeper (MIXDOWN_JOB_RETENTION_DAYS) takes the oldest finished jobs in batches: from this index,
-- not by reading every job.
CREATE INDEX jobs_by_completion ON jobs (completed_at);
