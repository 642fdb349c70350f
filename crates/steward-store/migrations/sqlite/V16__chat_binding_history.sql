-- Schema v16: a chat's bindings are kept as a history instead of one row per chat, so a
-- conversation still knows the chat it lived in after `/new` moved the chat on (a reminder
-- set in it must reach that chat, not fail because the chat has a new conversation). The
-- chat's current conversation is its latest binding. SQLite cannot drop the UNIQUE
-- constraint in place: the table is rebuilt, every row kept. Applied in one transaction by
-- src/sqlite/migrate.rs.

CREATE TABLE edge_chats_v16 (
    id              INTEGER PRIMARY KEY,
    surface         TEXT    NOT NULL,
    chat            TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL,
    bound_at_ms     INTEGER NOT NULL
);
INSERT INTO edge_chats_v16 (id, surface, chat, conversation_id, bound_at_ms)
    SELECT id, surface, chat, conversation_id, bound_at_ms FROM edge_chats;
DROP TABLE edge_chats;
ALTER TABLE edge_chats_v16 RENAME TO edge_chats;
CREATE INDEX edge_chats_by_chat ON edge_chats (surface, chat, bound_at_ms, id);
CREATE INDEX edge_chats_by_conversation ON edge_chats (surface, conversation_id, bound_at_ms);
