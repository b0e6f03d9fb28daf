-- Ladder ratings: Weng-Lin (mu, sigma) per pool and rated name (an account's name, or a
-- built-in bot's kind as "odds bot"), updated with each game's record.
CREATE TABLE ladder_ratings (
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    -- 'person', 'bot' (an account's kind) or '' (a built-in bot).
    kind TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (pool, name)
);

-- Each player's rating after each of its ladder games.
CREATE TABLE ladder_history (
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    game_id TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    place BIGINT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (pool, name, game_id)
);
