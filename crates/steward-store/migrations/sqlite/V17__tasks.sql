-- Recurring tasks the owner scheduled: a stored prompt run as an agent turn on a schedule,
-- its result delivered to the target captured when it was set (never looked up at fire
-- time). Each run is an occurrence of the `tasks` job (`task-<id>-at-<unix seconds>`), so a
-- fire runs once across restarts and processes.
CREATE TABLE tasks (
    id           TEXT    PRIMARY KEY,
    principal    TEXT    NOT NULL,
    title        TEXT    NOT NULL,
    prompt       TEXT    NOT NULL,
    schedule     TEXT    NOT NULL,
    surface      TEXT    NOT NULL,
    conversation TEXT    NOT NULL,
    trace_id     TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    created_ms   INTEGER NOT NULL,
    cancelled_ms INTEGER
);
CREATE INDEX tasks_active ON tasks (status, created_ms);
CREATE INDEX tasks_by_principal ON tasks (principal, status, created_ms);
