-- Live data, version 1. Times are Unix seconds (UTC); coordinates are the
-- exact WGS 84 degrees as recorded; they are coarsened when published.
CREATE TABLE sites (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    water_body_type TEXT NOT NULL,
    latitude DOUBLE PRECISION NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude DOUBLE PRECISION NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    public BOOLEAN NOT NULL DEFAULT TRUE
);

CREATE TABLE observations (
    id BIGINT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites (id),
    observed_at BIGINT NOT NULL,
    parameter TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    unit TEXT NOT NULL,
    method TEXT NOT NULL,
    quality_flag TEXT NOT NULL,
    volunteer_id BIGINT
);

-- Keyset pagination runs newest first on (observed_at, id), alone or after
-- an equality filter on parameter and/or site.
CREATE INDEX observations_time ON observations (observed_at, id);
CREATE INDEX observations_parameter_time ON observations (parameter, observed_at, id);
CREATE INDEX observations_site_time ON observations (site_id, observed_at, id);
CREATE INDEX observations_site_parameter_time ON observations (site_id, parameter, observed_at, id);

-- Counted for the platform statistics only: no names or contact details.
CREATE TABLE volunteers (
    id BIGINT PRIMARY KEY,
    joined_at BIGINT NOT NULL
);

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    collects_classifications BOOLEAN NOT NULL DEFAULT FALSE
);

CREATE TABLE classifications (
    id BIGINT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    volunteer_id BIGINT,
    created_at BIGINT NOT NULL
);
