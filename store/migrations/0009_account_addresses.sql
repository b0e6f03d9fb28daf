-- Where an account was registered from (the address as the server's per-address limits count
-- it: an IPv4 address, or an IPv6 /64): a ladder's pool of people never seats two accounts
-- registered from one address at one table. Empty for accounts made before, or by the admin.
ALTER TABLE accounts ADD COLUMN registered_from TEXT;
