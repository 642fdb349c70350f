-- Schema v3: memory. Facts (with source trust), notes, read-later items, learnings, intentions;
-- one full-text index over all of them; bookkeeping for the per-model vector tables (created on
-- the first vector of each embedder model, by src/sqlite/memory/vectors.rs, as sqlite-vec vec0
-- tables named memory_vec_<dims>_<model row id>). Times are unix milliseconds; provenance is the
-- JSON of steward_protocol::Provenance. Applied in one transaction by src/sqlite/migrate.rs.

CREATE TABLE facts (
    id            INTEGER PRIMARY KEY,
    user          TEXT    NOT NULL,
    key           TEXT    NOT NULL,
    value         TEXT    NOT NULL,
    source        TEXT    NOT NULL CHECK (source IN ('user', 'extracted', 'reflection')),
    confidence    REAL    NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    first_seen_ms INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL,
    expires_at_ms INTEGER,
    provenance    TEXT    NOT NULL,
    UNIQUE (user, key)
);
CREATE INDEX facts_by_expiry ON facts (expires_at_ms) WHERE expires_at_ms IS NOT NULL;

CREATE TABLE notes (
    id            INTEGER PRIMARY KEY,
    user          TEXT    NOT NULL,
    title         TEXT    NOT NULL,
    body          TEXT    NOT NULL,
    tags          TEXT    NOT NULL,  -- JSON array of strings
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    provenance    TEXT    NOT NULL
);
CREATE INDEX notes_by_user ON notes (user, created_at_ms);

CREATE TABLE read_later (
    id            INTEGER PRIMARY KEY,
    user          TEXT    NOT NULL,
    url           TEXT    NOT NULL,
    title         TEXT    NOT NULL,
    tags          TEXT    NOT NULL,  -- JSON array of strings
    created_at_ms INTEGER NOT NULL,
    provenance    TEXT    NOT NULL
);
CREATE INDEX read_later_by_user ON read_later (user, created_at_ms);

-- `norm` is the trimmed, lowercased text (computed in Rust: SQLite's lower() is ASCII-only),
-- so the same learning seen again bumps one row.
CREATE TABLE learnings (
    id            INTEGER PRIMARY KEY,
    user          TEXT    NOT NULL,
    text          TEXT    NOT NULL,
    norm          TEXT    NOT NULL,
    recurrence    INTEGER NOT NULL CHECK (recurrence BETWEEN 1 AND 4294967295),
    first_seen_ms INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL,
    provenance    TEXT    NOT NULL,
    UNIQUE (user, norm)
);
CREATE INDEX learnings_by_rank ON learnings (user, recurrence DESC, last_seen_ms DESC);

CREATE TABLE intentions (
    id            INTEGER PRIMARY KEY,
    user          TEXT    NOT NULL,
    text          TEXT    NOT NULL,
    due_at_ms     INTEGER,
    nudges        INTEGER NOT NULL CHECK (nudges BETWEEN 0 AND 3),
    open          INTEGER NOT NULL CHECK (open IN (0, 1)),
    created_at_ms INTEGER NOT NULL,
    provenance    TEXT    NOT NULL
);
CREATE INDEX intentions_by_user ON intentions (user, open);

-- One row per searchable memory row, whatever its kind: its id is the rowid in memory_fts and
-- in every vector table, and it carries what filters need (user, kind, creation time, tags) so
-- that one query ranks all kinds together.
CREATE TABLE memory_docs (
    id            INTEGER PRIMARY KEY,
    kind          TEXT    NOT NULL
                  CHECK (kind IN ('fact', 'note', 'learning', 'read_later', 'intention')),
    ref_id        INTEGER NOT NULL,
    user          TEXT    NOT NULL,
    created_at_ms INTEGER NOT NULL,
    tags          TEXT    NOT NULL,  -- JSON array of strings
    UNIQUE (kind, ref_id)
);

-- Contentless: the text already lives in the tables above, so the index stores only tokens.
-- contentless_delete lets rows be deleted by rowid. Porter stemming over unicode61: on plain
-- English it matches inflections ("running" finds "run") that paraphrased queries need.
CREATE VIRTUAL TABLE memory_fts USING fts5(
    title, body, tags,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
-- A word in a title or tag says more about the row than the same word in a long body.
INSERT INTO memory_fts (memory_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0, 1.5)');

-- Embedder model id -> its vec0 table and dimensions (fixed by the first vector).
CREATE TABLE embedding_models (
    id         INTEGER PRIMARY KEY,
    model_id   TEXT    NOT NULL UNIQUE,
    dims       INTEGER NOT NULL CHECK (dims BETWEEN 1 AND 8192),
    table_name TEXT    NOT NULL UNIQUE
);

-- Which doc has a vector for which model (the backfill reads the gaps from here).
CREATE TABLE embeddings (
    model       INTEGER NOT NULL REFERENCES embedding_models (id),
    doc_id      INTEGER NOT NULL REFERENCES memory_docs (id),
    embedded_ms INTEGER NOT NULL,
    PRIMARY KEY (model, doc_id)
) WITHOUT ROWID;
CREATE INDEX embeddings_by_doc ON embeddings (doc_id);

-- Reflection reads the day's messages across conversations.
CREATE INDEX messages_by_time ON messages (created_at);
