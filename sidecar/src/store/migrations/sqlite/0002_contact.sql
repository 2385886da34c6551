-- Enquiries from the contact form, their mail outbox, used challenges and
-- the per-client rate-limit counters (shared by replicas on PostgreSQL).
-- Times are Unix milliseconds.
CREATE TABLE enquiries (
    reference TEXT PRIMARY KEY,
    received_at INTEGER NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    organisation TEXT,
    topic TEXT NOT NULL,
    message TEXT NOT NULL
);

-- status: pending (to send), sent, parked (permanent failure).
CREATE TABLE outbox (
    reference TEXT PRIMARY KEY REFERENCES enquiries (reference),
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    attempt_after INTEGER NOT NULL,
    claimed_until INTEGER NOT NULL DEFAULT 0,
    claim_token TEXT,
    sent_at INTEGER,
    last_error TEXT
);
CREATE INDEX outbox_due ON outbox (status, attempt_after);

CREATE TABLE used_challenges (
    nonce TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);

CREATE TABLE rate_limits (
    bucket TEXT NOT NULL,
    client TEXT NOT NULL,
    reset_at INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (bucket, client)
);
