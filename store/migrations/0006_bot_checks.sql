-- Bot checks (`dudo bot check`): each run's outcome per account, so that a server can ask
-- for a passed check within some days before ranked play.
CREATE TABLE bot_checks (
    account TEXT NOT NULL,
    at BIGINT NOT NULL,
    -- 1 when the bot did nothing wrong.
    passed BIGINT NOT NULL,
    -- What it did wrong, a fault a line.
    faults TEXT NOT NULL,
    PRIMARY KEY (account, at)
);
