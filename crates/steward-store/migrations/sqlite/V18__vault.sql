-- The vault: each secret sealed with XChaCha20-Poly1305 under the vault key (never stored
-- here), its name as associated data. Only names are ever listed; values leave only opened,
-- for the code that needs them.
CREATE TABLE vault_secrets (
    name       TEXT    PRIMARY KEY,
    nonce      BLOB    NOT NULL,
    ciphertext BLOB    NOT NULL,
    updated_ms INTEGER NOT NULL
);
