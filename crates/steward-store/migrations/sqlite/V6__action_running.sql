-- Schema v6: the `running` status. An approved action is marked running (with its audit entry)
-- before its tool starts, so the record of execution is always true: after a crash, an action
-- left confirmed or running is reported as "it may have run". SQLite cannot change a CHECK
-- constraint in place, so pending_actions is rebuilt with the same columns and every row copied
-- as it is. Applied in one transaction by src/sqlite/migrate.rs; nothing else changes.

CREATE TABLE pending_actions_v6 (
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
                        ('pending', 'confirmed', 'running', 'executed', 'failed', 'cancelled',
                         'expired')),
    revision        INTEGER NOT NULL CHECK (revision BETWEEN 0 AND 4294967295),
    awaiting_edit   INTEGER NOT NULL CHECK (awaiting_edit IN (0, 1)),
    outcome         TEXT,
    updated_at_ms   INTEGER NOT NULL
);

INSERT INTO pending_actions_v6
    (id, kind, tool, arguments, payload_hash, preview, trace_id, conversation_id, surface,
     principal, created_at_ms, expires_at_ms, status, revision, awaiting_edit, outcome,
     updated_at_ms)
SELECT id, kind, tool, arguments, payload_hash, preview, trace_id, conversation_id, surface,
       principal, created_at_ms, expires_at_ms, status, revision, awaiting_edit, outcome,
       updated_at_ms
FROM pending_actions;

DROP TABLE pending_actions;
ALTER TABLE pending_actions_v6 RENAME TO pending_actions;

CREATE INDEX pending_actions_by_status ON pending_actions (status, expires_at_ms);
CREATE INDEX pending_actions_by_conversation ON pending_actions (conversation_id, created_at_ms);
