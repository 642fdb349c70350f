-- Schema v1: conversations, their messages, and a small key-value table.
-- Times are unix milliseconds. Applied in one transaction by src/sqlite/migrate.rs.

CREATE TABLE conversations (
    id         TEXT    PRIMARY KEY NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT    NOT NULL REFERENCES conversations(id),
    seq             INTEGER NOT NULL,
    role            TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content         TEXT    NOT NULL,
    tool_calls      TEXT,   -- JSON array of {id, name, arguments}, NULL when there are none
    tool_call_id    TEXT,
    tool_name       TEXT,
    created_at      INTEGER NOT NULL,
    UNIQUE (conversation_id, seq)
);
-- No separate index on (conversation_id, seq): the UNIQUE constraint above already is one,
-- and a duplicate would only double the index work on every append.

CREATE TABLE kv (
    key        TEXT    PRIMARY KEY NOT NULL,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
);
