-- Tournaments that hold (a restart, a staller, a crowd of organisers).
--
-- Every game a tournament's tables began, whatever became of its table: its record stays
-- closed until the tournament ends. `tournament_games` names the table each game is played
-- at now; a game cut off and played again on a new table keeps its first one here.
CREATE TABLE tournament_records (
    game_id TEXT PRIMARY KEY,
    tournament TEXT NOT NULL
);
INSERT INTO tournament_records (game_id, tournament) SELECT game_id, tournament FROM tournament_games;

-- The secret a tournament's tables' tokens are derived from (so a restart can seat its
-- entrants again at the same tables); never shown, not even when the seed is.
ALTER TABLE tournaments ADD COLUMN seat_key TEXT NOT NULL DEFAULT '';

-- Why an entrant was benched for stalling ('' while it plays): its later games are forfeit.
ALTER TABLE tournament_entrants ADD COLUMN benched TEXT NOT NULL DEFAULT '';

-- Tournaments listed by organiser, and newest first (a cursor pages them).
CREATE INDEX tournaments_by_organiser ON tournaments (organiser, created_at);
CREATE INDEX tournaments_by_created ON tournaments (created_at, id);

-- A bot check in progress, one an account across the cluster: held by the node running it
-- until `until` (renewed while it runs), so a node that died lets it go.
CREATE TABLE bot_checks_running (
    account TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    until_at BIGINT NOT NULL
);
