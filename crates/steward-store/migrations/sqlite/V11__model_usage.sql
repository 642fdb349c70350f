-- Schema v11: the usage ledger. One row per model call that answered (a turn's rounds, post-turn
-- fact extraction): when, for which conversation and turn, which "provider:model" answered,
-- the tokens it reported and what that cost by the price table in force at the time (NULL when
-- the model has no price: "no price", never $0). Roll-ups read it by time
-- (`usage_buckets`). Applied in one transaction by src/sqlite/migrate.rs.

CREATE TABLE model_usage (
    id              INTEGER PRIMARY KEY,
    at_secs         INTEGER NOT NULL CHECK (at_secs >= 0),  -- Unix seconds, by the injected clock
    conversation_id TEXT,              -- NULL for work outside a conversation (jobs, later)
    turn_id         TEXT,              -- the turn (also the trace id); NULL outside a turn
    model           TEXT    NOT NULL,  -- "provider:model" that answered
    purpose         TEXT    NOT NULL CHECK (purpose IN ('turn', 'extraction')),
    genre           TEXT    NOT NULL,  -- the turn's surface ("cli", "http", ...); job genres later
    input_tokens    INTEGER NOT NULL CHECK (input_tokens >= 0),
    output_tokens   INTEGER NOT NULL CHECK (output_tokens >= 0),
    cost_micro_usd  INTEGER CHECK (cost_micro_usd >= 0)  -- NULL: the model has no price
);

CREATE INDEX model_usage_by_time ON model_usage (at_secs);
