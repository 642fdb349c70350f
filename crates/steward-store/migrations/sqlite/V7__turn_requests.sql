-- Schema v7: turn requests. A client's retry of a request (same Idempotency-Key, or an SDK's
-- marked retry of the same conversation and content) is the same turn: this table remembers
-- each keyed request's turn, whether the user's message is already stored, and how it ended,
-- so a retry replays the end or resumes the turn instead of running it again. Rows older than
-- a day are pruned by the turn pipeline. Applied in one transaction by src/sqlite/migrate.rs.

CREATE TABLE turn_requests (
    id              TEXT    PRIMARY KEY NOT NULL,  -- RequestKey: a digest, never raw client text
    conversation_id TEXT    NOT NULL,
    turn_id         TEXT    NOT NULL,
    fingerprint     TEXT    NOT NULL,  -- digest of what was asked: the same key with other content is refused
    user_stored     INTEGER NOT NULL CHECK (user_stored IN (0, 1)),
    outcome         TEXT,              -- JSON of the turn's replayable events; NULL while running
    created_at_ms   INTEGER NOT NULL,
    updated_at_ms   INTEGER NOT NULL
);

CREATE INDEX turn_requests_by_age ON turn_requests (created_at_ms);
