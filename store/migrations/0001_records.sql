-- The records schema, in SQLite's words; the store gives PostgreSQL the same with BYTEA for BLOB.
-- Tables that may be in play: one row each, closed_at set once nothing will resume them.
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    code TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    closed_at BIGINT
);
CREATE INDEX tables_open ON tables (closed_at);

-- Each table's journal: what it was created with and every input it accepted, in order.
CREATE TABLE journal (
    table_id TEXT NOT NULL,
    n BIGINT NOT NULL,
    at BIGINT NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (table_id, n)
);

-- Finished games: the whole record, and what history searches by.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    preset TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT NOT NULL,
    rating_pool TEXT NOT NULL,
    record BLOB NOT NULL
);
CREATE INDEX games_finished ON games (finished_at);

CREATE TABLE game_players (
    game_id TEXT NOT NULL,
    seat BIGINT NOT NULL,
    name TEXT NOT NULL,
    bot TEXT NOT NULL,
    place BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_players_name ON game_players (name);
CREATE INDEX game_players_bot ON game_players (bot);

-- Elo ratings by pool ("arena", "ranked") and player or bot name.
CREATE TABLE ratings (
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (pool, name)
);
