-- Live data, version 1. Times are Unix seconds (UTC); coordinates are the
-- exact WGS 84 degrees as recorded; they are coarsened when published.
CREATE TABLE sites (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    water_body_type TEXT NOT NULL,
    latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    public INTEGER NOT NULL DEFAULT 1
) STRICT;

CREATE TABLE observations (
    id INTEGER PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites (id),
    observed_at INTEGER NOT NULL,
    parameter TEXT NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    method TEXT NOT NULL,
    quality_flag TEXT NOT NULL,
    volunteer_id INTEGER
) STRICT;

-- Keyset pagination runs newest first on (observed_at, id), alone or after
-- an equality filter on parameter and/or site.
CREATE INDEX observations_time ON observations (observed_at, id);
CREATE INDEX observations_parameter_time ON observations (parameter, observed_at, id);
CREATE INDEX observations_site_time ON observations (site_id, observed_at, id);
CREATE INDEX observations_site_parameter_time ON observations (site_id, parameter, observed_at, id);

-- Counted for the platform statistics only: no names or contact details.
CREATE TABLE volunteers (
    id INTEGER PRIMARY KEY,
    joined_at INTEGER NOT NULL
) STRICT;

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    collects_classifications INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE classifications (
    id INTEGER PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    volunteer_id INTEGER,
    created_at INTEGER NOT NULL
) STRICT;
