-- Schema v8: a conversation may have a title the owner gave it (the read side: list, rename,
-- delete). NULL = untitled. Applied in one transaction by src/sqlite/migrate.rs.

ALTER TABLE conversations ADD COLUMN title TEXT;
