-- Custom workflow definitions, shared by every node (they were files in each node's MIXDOWN_WORKFLOWS_DIR): the
-- operator's text, its parse (JSON) and a hash of the parse. A removed workflow keeps its row with source NULL (and
-- changed_at the removal's time), so a file older than the removal is not installed again by a node's directory.
CREATE TABLE custom_workflows (
  slug TEXT PRIMARY KEY,
  format TEXT NOT NULL,
  source TEXT,
  definition TEXT,
  definition_hash TEXT,
  changed_at TEXT NOT NULL
);

-- One row whose revision moves with every change of custom_workflows: what a node compares to know whether its
-- copy of the definitions is current.
CREATE TABLE custom_workflows_revision (
  id INTEGER PRIMARY KEY,
  revision BIGINT NOT NULL
);
INSERT INTO custom_workflows_revision (id, revision) VALUES (1, 0);

-- dialect: postgres
-- Every node LISTENs: a change is heard at once rather than at the next look.
CREATE FUNCTION mixdown_notify_custom_workflows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('mixdown_custom_workflows', NEW.revision::text);
  RETURN NEW;
END;
$$;
CREATE TRIGGER custom_workflows_revision_notify AFTER UPDATE ON custom_workflows_revision
  FOR EACH ROW EXECUTE FUNCTION mixdown_notify_custom_workflows();
