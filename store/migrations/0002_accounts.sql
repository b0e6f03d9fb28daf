-- Accounts: names of their own on this server, and the API tokens that prove them.
CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    -- As registered (trimmed, NFC), shown wherever the account plays.
    name TEXT NOT NULL,
    -- What makes two names the same: case and lookalike characters folded (the server's).
    name_key TEXT NOT NULL UNIQUE,
    -- 'person' or 'bot'.
    kind TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    suspended_at BIGINT
);

-- API tokens: only their SHA-256 is kept; the secret is shown once.
CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    label TEXT NOT NULL,
    hash BLOB NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_tokens_account ON api_tokens (account_id);

-- Which kind of account played a seat ('' for a guest or a built-in bot).
ALTER TABLE game_players ADD COLUMN account_kind TEXT NOT NULL DEFAULT '';
