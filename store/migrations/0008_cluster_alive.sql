-- A node's word that it is alive, held by PostgreSQL itself: the key of an advisory lock the
-- node's own session holds (0: a node that takes none, as nodes of earlier versions). A node
-- whose key is no longer locked has lost its session (it died): the others take its tables
-- at once rather than when their leases run out.
ALTER TABLE nodes ADD COLUMN alive_lock BIGINT NOT NULL DEFAULT 0;

-- The node a table let go of (its node died, or drained) is meant for: the survivors share a
-- dead node's tables rather than the first to look taking them all. Any node takes it once it
-- has waited a moment unadopted.
ALTER TABLE tables ADD COLUMN heir TEXT;
