-- Schema v5: vectors without sqlite-vec. The coarse hamming pass moves into the process (an
-- in-memory copy of every vector's sign bits); each model's sign bits live in a plain table,
-- whose triggers log every change here so that each connection's in-memory copy can catch up
-- with writes from other connections and processes (see src/sqlite/memory/vectors/sync.rs).
-- After this SQL, src/sqlite/migrate.rs runs the Rust step that moves every model to the new
-- tables and removes the old vec0 tables (src/sqlite/memory/vectors/legacy.rs).

-- AUTOINCREMENT: a seq is never reused, even after pruning, so "changes after seq N" is exact.
CREATE TABLE memory_vec_changes (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    model  INTEGER NOT NULL,
    doc_id INTEGER NOT NULL
);

-- The log is pruned to its recent entries; an in-memory copy last synced at or before
-- `through` has missed some and reloads in full.
CREATE TABLE memory_vec_pruned (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    through INTEGER NOT NULL
);
INSERT INTO memory_vec_pruned (id, through) VALUES (1, 0);
