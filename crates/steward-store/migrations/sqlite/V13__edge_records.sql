-- Schema v13: what a messaging surface (Telegram now, others later) keeps about its own
-- platform's ids, at the edge, so nothing in core holds one (`EdgeStore`). Keys are opaque
-- text (Telegram's i64 ids printed in decimal); `surface` is a `Surface` spelling. Protected
-- from the SQL tools (`PROTECTED_TABLES`): a model that could write these could forge the
-- trace behind a button press or make the surface drop or replay an update. Applied in one
-- transaction by src/sqlite/migrate.rs.

-- Inbound update ids already handled: the primary key is the dedup (a claim is an insert
-- that either lands or meets the row). Forgotten by age (`forget_updates_before`).
CREATE TABLE edge_updates (
    surface       TEXT    NOT NULL,
    update_key    TEXT    NOT NULL,
    claimed_at_ms INTEGER NOT NULL,
    PRIMARY KEY (surface, update_key)
) WITHOUT ROWID;

CREATE INDEX edge_updates_by_time ON edge_updates (surface, claimed_at_ms);

-- The conversation each platform chat is bound to now (one row per chat; a rebind replaces
-- it). `id` orders bindings made in the same millisecond.
CREATE TABLE edge_chats (
    id              INTEGER PRIMARY KEY,
    surface         TEXT    NOT NULL,
    chat            TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL,  -- need not exist yet: a /new binds before any message
    bound_at_ms     INTEGER NOT NULL,
    UNIQUE (surface, chat)
);

CREATE INDEX edge_chats_by_conversation ON edge_chats (surface, conversation_id, bound_at_ms);

-- The messages a surface sent: the turn (trace) behind each, what kind it is, and the
-- approval card it shows, if any. One row per (surface, chat, message); a re-record replaces
-- it in place.
CREATE TABLE edge_messages (
    id         INTEGER PRIMARY KEY,
    surface    TEXT    NOT NULL,
    chat       TEXT    NOT NULL,
    message    TEXT    NOT NULL,
    trace_id   TEXT    NOT NULL,
    genre      TEXT    NOT NULL,
    action_id  TEXT,              -- set when the message shows an approval card
    at_ms      INTEGER NOT NULL,
    UNIQUE (surface, chat, message)
);

CREATE INDEX edge_messages_by_card ON edge_messages (surface, action_id, at_ms)
    WHERE action_id IS NOT NULL;
