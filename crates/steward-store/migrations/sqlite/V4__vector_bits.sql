-- Schema v4: vectors in two passes. Each embedder model's vectors move from one float32 vec0
-- table to a pair: sign bits in vec0 for a coarse hamming search, float32 in a plain table for
-- exact rescoring (see src/sqlite/memory/vectors/layout.rs). The per-model tables have names
-- that are data, so after this SQL, src/sqlite/migrate.rs runs the Rust step that rebuilds
-- every layout-1 model's tables, in the same transaction.

-- 1 = one float32 vec0 table (schema v3); 2 = bit vec0 + float table.
ALTER TABLE embedding_models
    ADD COLUMN layout INTEGER NOT NULL DEFAULT 1 CHECK (layout IN (1, 2));
