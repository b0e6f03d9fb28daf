//! The gRPC services, thin adapters over the node: each checks a call's request, asks the
//! node (and through it a table, the store, the accounts or the ladder), and maps what comes
//! back to an answer or a status (`crate::status`). Nothing below them imports them.

mod accounts;
mod forward;
mod history;
mod ladder;
mod lobby;
mod play;
mod tournaments;
