-- Schema v14: a score says what kind of message it judged ("chat", "briefing", "reminder",
-- …) when it came from a reaction, so the engagement report counts 👍 and 👎 per genre
-- without joining a surface's own records. NULL for scores that judge an action (approval,
-- edit) rather than a message, and for every score written before v14. Applied in one
-- transaction by src/sqlite/migrate.rs.

ALTER TABLE scores ADD COLUMN genre TEXT;
