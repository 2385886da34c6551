-- Repeatable imports. An observation may carry the source it came from and
-- that source's own row id; a row without an id is known by its natural key
-- (source, site, parameter, time). Either key is unique, so importing the
-- same file twice adds nothing. Rows written before this version (and the
-- sample data) have no source and no key.
ALTER TABLE observations ADD COLUMN source TEXT;
ALTER TABLE observations ADD COLUMN source_id TEXT;
-- A withdrawn observation stays as a tombstone, so that importing the
-- original file again does not bring it back; no public read shows it.
ALTER TABLE observations ADD COLUMN withdrawn BOOLEAN NOT NULL DEFAULT FALSE;
CREATE UNIQUE INDEX observations_source_id ON observations (source, source_id);
CREATE UNIQUE INDEX observations_natural_key ON observations (source, site_id, parameter, observed_at)
    WHERE source_id IS NULL;

-- Imported classifications carry the platform's own classification id,
-- unique per project.
ALTER TABLE classifications ADD COLUMN source_id TEXT;
CREATE UNIQUE INDEX classifications_source_id ON classifications (project_id, source_id);
