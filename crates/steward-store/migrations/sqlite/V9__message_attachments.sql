-- Schema v9: a message may carry parts (images, audio, files). The column holds the JSON array
-- of their attachments (kind, mime_type, size, name, blob reference), NULL when there are none;
-- the bytes live in the blob store (`<data_dir>/blobs/`), never in the database.
-- Applied in one transaction by src/sqlite/migrate.rs.

ALTER TABLE messages ADD COLUMN attachments TEXT;
