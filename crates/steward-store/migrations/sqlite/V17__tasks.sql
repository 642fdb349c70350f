-- Recurring tasks the owner scheduled: a stored prompt run as an agent turn on a schedule,
-- its result delivered to the target captured when it was set (never looked up at fire
-- time). Named `scheduled_tasks`, not `tasks`: the owner's own tables made through the SQL
-- tools may well be called `tasks`, and Steward's own tables are protected from those tools.
-- Each run is an occurrence of the `tasks` job (`task-<id>-at-<unix seconds>`), so a
-- fire runs once across restarts and processes.
CREATE TABLE scheduled_tasks (
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
CREATE INDEX scheduled_tasks_active ON scheduled_tasks (status, created_ms);
CREATE INDEX scheduled_tasks_by_principal ON scheduled_tasks (principal, status, created_ms);
