-- Schema v15: the scheduler's records. Applied in one transaction by src/sqlite/migrate.rs.
--
-- job_occurrences: one row per occurrence of a job under its dedup key (a fire time, a
-- reminder id), which survives restarts; the lease (owner, lease_until_ms) makes one runner
-- of several processes run it; attempts, retries and the end are kept for `jobs report`.
CREATE TABLE job_occurrences (
    job            TEXT    NOT NULL,
    occurrence     TEXT    NOT NULL,
    scheduled_ms   INTEGER NOT NULL,
    status         TEXT    NOT NULL,
    attempts       INTEGER NOT NULL,
    owner          TEXT    NOT NULL,
    lease_until_ms INTEGER NOT NULL,
    next_try_ms    INTEGER,
    started_ms     INTEGER NOT NULL,
    finished_ms    INTEGER,
    outcome        TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (job, occurrence)
) WITHOUT ROWID;
CREATE INDEX job_occurrences_by_due ON job_occurrences (job, scheduled_ms);

-- One heartbeat per job: the latest sign of life and who gave it.
CREATE TABLE job_heartbeats (
    job   TEXT    PRIMARY KEY,
    owner TEXT    NOT NULL,
    at_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- Every message sent unasked, with its genre and trace id (a reaction scores the trace), at
-- most one per occurrence.
CREATE TABLE proactive_messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    genre        TEXT    NOT NULL,
    trace_id     TEXT    NOT NULL,
    job          TEXT    NOT NULL,
    occurrence   TEXT    NOT NULL,
    surface      TEXT    NOT NULL,
    conversation TEXT    NOT NULL,
    delivery     TEXT    NOT NULL,
    at_ms        INTEGER NOT NULL,
    UNIQUE (job, occurrence)
);
CREATE INDEX proactive_messages_by_time ON proactive_messages (at_ms);

-- Reminders, with the delivery target captured when they were set.
CREATE TABLE reminders (
    id           TEXT    PRIMARY KEY,
    principal    TEXT    NOT NULL,
    text         TEXT    NOT NULL,
    due_ms       INTEGER NOT NULL,
    shown        TEXT    NOT NULL,
    surface      TEXT    NOT NULL,
    conversation TEXT    NOT NULL,
    trace_id     TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    created_ms   INTEGER NOT NULL,
    closed_ms    INTEGER
);
CREATE INDEX reminders_due ON reminders (status, due_ms);
CREATE INDEX reminders_by_principal ON reminders (principal, status, due_ms);
