-- Schema v2: the approval gate. Pending actions, their append-only audit trail, grants and
-- scores. Times are unix milliseconds. Applied in one transaction by src/sqlite/migrate.rs.
--
-- Nothing here (no trigger, no default, no cascade) ever changes pending_actions.status: the
-- only writer of a status is transition_action, called only by steward-core's Approvals::resolve.
-- These tables, and kv, are listed in PROTECTED_TABLES: model-driven SQL tools may not touch them.

CREATE TABLE pending_actions (
    id              TEXT    PRIMARY KEY NOT NULL,
    kind            TEXT    NOT NULL CHECK (kind IN ('tool', 'plan')),
    tool            TEXT    NOT NULL,
    arguments       TEXT    NOT NULL,  -- canonical JSON text: exactly what will run
    payload_hash    TEXT    NOT NULL,  -- SHA-256 hex of tool NUL arguments; approval binds to it
    preview         TEXT    NOT NULL,
    trace_id        TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL,
    surface         TEXT    NOT NULL,
    principal       TEXT    NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    expires_at_ms   INTEGER NOT NULL,
    status          TEXT    NOT NULL CHECK (status IN
                        ('pending', 'confirmed', 'executed', 'failed', 'cancelled', 'expired')),
    revision        INTEGER NOT NULL CHECK (revision BETWEEN 0 AND 4294967295),
    awaiting_edit   INTEGER NOT NULL CHECK (awaiting_edit IN (0, 1)),
    outcome         TEXT,
    updated_at_ms   INTEGER NOT NULL
);
-- The expiry sweep and the "pending" list; a conversation's actions, newest first.
CREATE INDEX pending_actions_by_status ON pending_actions (status, expires_at_ms);
CREATE INDEX pending_actions_by_conversation ON pending_actions (conversation_id, created_at_ms);

-- No foreign key to pending_actions: a refused call is audited but never becomes an action.
CREATE TABLE action_audit (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    action_id TEXT    NOT NULL,
    at_ms     INTEGER NOT NULL,
    principal TEXT    NOT NULL,
    surface   TEXT    NOT NULL,
    event     TEXT    NOT NULL CHECK (length(event) BETWEEN 1 AND 64),
    detail    TEXT    NOT NULL,  -- JSON text or ''
    trace_id  TEXT    NOT NULL
);
CREATE INDEX action_audit_by_action ON action_audit (action_id, id);

-- An audit trail that can be edited proves nothing: refuse it in the database itself, whoever
-- holds the connection.
CREATE TRIGGER action_audit_no_update BEFORE UPDATE ON action_audit
BEGIN
    SELECT RAISE(ABORT, 'action_audit is append-only');
END;
CREATE TRIGGER action_audit_no_delete BEFORE DELETE ON action_audit
BEGIN
    SELECT RAISE(ABORT, 'action_audit is append-only');
END;
-- INSERT OR REPLACE deletes the old row without firing DELETE triggers (recursive_triggers is
-- off by default), so an insert reusing an existing id is refused as well.
CREATE TRIGGER action_audit_no_replace BEFORE INSERT ON action_audit
WHEN EXISTS (SELECT 1 FROM action_audit WHERE id = NEW.id)
BEGIN
    SELECT RAISE(ABORT, 'action_audit is append-only');
END;

CREATE TABLE grants (
    id              TEXT    PRIMARY KEY NOT NULL,
    conversation_id TEXT    NOT NULL,
    tool            TEXT    NOT NULL,
    principal       TEXT    NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    expires_at_ms   INTEGER NOT NULL,
    revoked         INTEGER NOT NULL CHECK (revoked IN (0, 1))
);
CREATE INDEX grants_by_scope ON grants (conversation_id, tool, expires_at_ms);

CREATE TABLE scores (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    trace_id  TEXT    NOT NULL,
    name      TEXT    NOT NULL,
    value     REAL    NOT NULL,
    action_id TEXT,
    at_ms     INTEGER NOT NULL
);
CREATE INDEX scores_by_trace ON scores (trace_id, id);
