-- Addresses a cluster node's per-address limits refused lately (as those limits count them: an
-- IPv4 address, or an IPv6 /64), until when each counts as refused (Unix ms): a table does not
-- take out a player whose address is being refused, at whichever node they try to reconnect.
CREATE TABLE refused_addresses (
    address TEXT PRIMARY KEY,
    until_ms BIGINT NOT NULL
);
