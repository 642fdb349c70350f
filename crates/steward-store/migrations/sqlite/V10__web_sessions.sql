-- Schema v10: the web app's signed-in sessions. A browser holds a random secret in its
-- session cookie; only the secret's SHA-256 is kept here, so a copy of the database signs
-- nobody in. The CSRF token is not stored: the server derives it from the secret the cookie
-- brings. `id` is the public name of a session (listed, revoked by), never a credential.
-- Rows past their end (absolute or idle) are pruned at sign-in. Protected from the SQL tools
-- (`PROTECTED_TABLES`). Applied in one transaction by src/sqlite/migrate.rs.

CREATE TABLE web_sessions (
    id              TEXT    PRIMARY KEY NOT NULL,  -- a UUID
    secret_hash     TEXT    NOT NULL UNIQUE,       -- lower-case hex SHA-256 of the cookie secret
    principal       TEXT    NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    last_seen_at_ms INTEGER NOT NULL,
    expires_at_ms   INTEGER NOT NULL,              -- the absolute end
    user_agent      TEXT
);

CREATE INDEX web_sessions_by_principal ON web_sessions (principal, created_at_ms);
