-- POST /job's copyResultsTo (output name → URL, as JSON): on success those outputs are PUT there, not kept.
ALTER TABLE jobs ADD COLUMN copy_results_to TEXT;
