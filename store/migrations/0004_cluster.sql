-- A cluster of servers on one database. Each open table is owned by one node through a lease:
-- the owner's id, an epoch that grows each time the table changes hands (every journal write
-- names it, and is refused once it is not the table's), and when the lease runs out unless
-- renewed (Unix milliseconds, by the database's clock). A single server leaves them unset.
ALTER TABLE tables ADD COLUMN owner TEXT;
ALTER TABLE tables ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
CREATE INDEX tables_owner ON tables (owner);
CREATE INDEX tables_code ON tables (code);

-- The nodes: where the others reach each one, how many tables it holds (a new table goes to
-- the node with fewest), whether it is draining, when it was last heard from, and a hash of
-- its cluster key (a node started with another key is refused before it takes any table).
CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    tables BIGINT NOT NULL,
    draining BIGINT NOT NULL,
    seen_at BIGINT NOT NULL,
    key_hash TEXT NOT NULL DEFAULT ''
);

-- What runs once per cluster (the ladder's matchmaker, say): the node holding each, until when.
CREATE TABLE cluster_jobs (
    job TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    lease_until BIGINT NOT NULL
);
