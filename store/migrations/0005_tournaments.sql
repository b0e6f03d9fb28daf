-- Tournaments: what the organiser set, who entered, and each game of the schedule as its
-- table is made and as it ends. The schedule itself is a function of the settings, the
-- entrants and the seed (dudo-tournament), so it is made again, not stored, when a server
-- carries a tournament on after a restart.
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    -- The organiser's account id ('' for the server's admin) and name.
    organiser TEXT NOT NULL,
    organiser_name TEXT NOT NULL,
    -- The settings, as the server's JSON (`tournament::Spec`).
    spec TEXT NOT NULL,
    -- 'entry', 'running', 'finished' or 'cancelled'.
    state TEXT NOT NULL,
    -- Every deal's seed comes from this one; it is shown once the tournament has ended, and
    -- the commitment (published from the start) proves it was not chosen later.
    seed BIGINT NOT NULL,
    salt TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    starts_at BIGINT NOT NULL,
    ended_at BIGINT NOT NULL DEFAULT 0,
    why TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tournaments_by_state ON tournaments (state);

CREATE TABLE tournament_entrants (
    tournament TEXT NOT NULL,
    -- In order of entry from 0 (house bots first): the schedule's name for the entrant.
    number BIGINT NOT NULL,
    -- The account's id, or '' for a house bot.
    account TEXT NOT NULL,
    name TEXT NOT NULL,
    -- 'person' or 'bot' (an account's kind), '' for a house bot.
    kind TEXT NOT NULL,
    -- The built-in bot a house entrant is ('' for an account).
    bot TEXT NOT NULL,
    entered_at BIGINT NOT NULL,
    PRIMARY KEY (tournament, number)
);

CREATE TABLE tournament_games (
    tournament TEXT NOT NULL,
    -- The game's number in the schedule.
    number BIGINT NOT NULL,
    table_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    -- The entrants' numbers from first place to last, comma-separated; '' while in play.
    finish TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tournament, number)
);
CREATE INDEX tournament_games_by_game ON tournament_games (game_id);
