-- Schema v12: a read-later item can be marked read (done) and unread again. NULL = not read
-- yet, else when it was first marked read (unix milliseconds). Applied in one transaction by
-- src/sqlite/migrate.rs.

ALTER TABLE read_later ADD COLUMN read_at_ms INTEGER;
