//! Where refusals meet gRPC status codes, once: the node's and its parts' [`Refusal`]s (as
//! `From<Refusal> for Status`), a table's refusal ([`status`]), a request refused before any
//! table sees it (`bad_request`), how a stream ends (`delivered`), and the stable code every
//! refusal carries in its metadata ([`CODE_KEY`]), which clients read instead of the text.
//! The bounds on what a request may carry are the refusals' own (`refusal.rs`), re-exported
//! here for the services.

use dudo_proto::v1 as pb;
use tonic::Status;

use crate::refusal::{Kind, Refusal};
use crate::table::{Delivery, StreamEnd, TableError};

/// The metadata key carrying a refusal's stable code (`TableError::code`), beside the text.
pub const CODE_KEY: &str = "dudo-code";
/// The metadata key saying how long to wait before calling again, in milliseconds.
pub const RETRY_AFTER_KEY: &str = "dudo-retry-after-ms";

/// Every code a refusal can carry in [`CODE_KEY`] (and `rejected.code`): the rules' own
/// (`RuleError::reason`), a table's (`TableError::code`), an account's (`AccountError::code`)
/// and the services' (`refused`). The one table of them: docs/protocol.md's "Refusal codes"
/// lists each, and the tests hold the docs and the server's sources to it both ways.
pub const CODES: &[&str] = &[
    // The rules (dudo_rules::RuleError::reason).
    "game_over",
    "no_such_seat",
    "out_of_the_game",
    "not_your_turn",
    "face_out_of_range",
    "quantity_out_of_range",
    "opening_on_wilds",
    "face_locked",
    "bid_not_higher",
    "no_bid_yet",
    "not_challengeable",
    "exact_call_not_allowed",
    "pass_not_allowed",
    "push_not_allowed",
    "push_die_missing",
    "claim_not_higher",
    "bad_hand",
    "roll_not_allowed",
    "claim_not_allowed",
    "accept_not_allowed",
    "challenge_not_allowed",
    "no_dogs_life",
    "not_in_this_game",
    "watch_not_allowed",
    "wild_never_bid",
    "leave_mid_round",
    // A table (TableError::code).
    "not_seated",
    "not_host",
    "not_started",
    "cannot_start",
    "game_started",
    "table_full",
    "host_cannot_leave",
    "already_seated",
    "account_required",
    "bad_name",
    "no_such_bot",
    "bad_setting",
    "seats_outside_rules",
    "not_journalable",
    "rate_limited",
    "too_far_behind",
    "displaced",
    "server_busy",
    "already_answered",
    "already_leaving",
    "leaving",
    "call_window_closed",
    "no_call_window",
    "stale_prompt",
    "table_spent",
    "journal",
    "bad_chat",
    "spectators_may_not_chat",
    "muted",
    "chat_rate_limited",
    "paused",
    "not_paused",
    "already_paused",
    "resume_not_yet",
    "between_rounds",
    "not_between_rounds",
    "no_such_link",
    "bot_seat",
    // Accounts (AccountError::code).
    "no_accounts",
    "name_taken",
    "registration_closed",
    "no_token",
    "bad_token",
    "suspended",
    "not_admin",
    "no_such_account",
    "no_such_token",
    "last_token",
    "too_many_tokens",
    "store",
    // The services, and how a stream ends (`refused`).
    "bad_request",
    "bad_action",
    "no_such_table",
    "no_such_game",
    "table_closed",
    "shutting_down",
    "table_unsaved",
    "connection_dropped",
    "table_moved",
    "removed",
    "left",
    "taken_out",
    "renumbered",
    "table_reset",
    "relinked",
    "replay_too_large",
    "tournament_running",
    "no_ladder",
    "no_such_pool",
    "wrong_pool",
    "already_entered",
    "ladder_moving",
    "bot_check_required",
    "check_running",
    "no_tournaments",
    "no_such_tournament",
    "not_an_account",
    "not_organiser",
    "too_many_tournaments",
    "entry_closed",
    "tournament_over",
    "tournament_full",
    "entered_again",
    "tournaments_moving",
    "too_many_tables",
    "server_full",
];

/// A table's refusal as a gRPC status: the one place table errors meet status codes.
pub fn status(e: TableError) -> Status {
    Status::from(Refusal::from(e))
}

/// A refusal as a gRPC status: its kind as the status code, its code and any wait in the
/// metadata. The node's, its parts' and the tables' refusals all leave through here.
impl From<Refusal> for Status {
    fn from(refusal: Refusal) -> Status {
        let code = match refusal.kind() {
            Kind::InvalidArgument => tonic::Code::InvalidArgument,
            Kind::NotFound => tonic::Code::NotFound,
            Kind::AlreadyExists => tonic::Code::AlreadyExists,
            Kind::FailedPrecondition => tonic::Code::FailedPrecondition,
            Kind::Unauthenticated => tonic::Code::Unauthenticated,
            Kind::PermissionDenied => tonic::Code::PermissionDenied,
            Kind::ResourceExhausted => tonic::Code::ResourceExhausted,
            Kind::Aborted => tonic::Code::Aborted,
            Kind::Unavailable => tonic::Code::Unavailable,
            Kind::Internal => tonic::Code::Internal,
        };
        let mut status = Status::new(code, refusal.message());
        if let Some(code) = refusal.code() {
            status.metadata_mut().insert(CODE_KEY, tonic::metadata::MetadataValue::from_static(code));
        }
        if let Some(wait) = refusal.retry_after_millis()
            && let Ok(wait) = wait.to_string().parse()
        {
            status.metadata_mut().insert(RETRY_AFTER_KEY, wait);
        }
        status
    }
}

/// `status` carrying the stable `code` clients read (see [`CODE_KEY`]).
pub(crate) fn refused(code: &'static str, mut status: Status) -> Status {
    status.metadata_mut().insert(CODE_KEY, tonic::metadata::MetadataValue::from_static(code));
    status
}

/// A request the service refuses before any table sees it, with the field at fault named in
/// the text and `bad_request` as its code.
pub(crate) fn bad_request(message: impl Into<String>) -> Status {
    Status::from(crate::refusal::bad_request(message))
}

/// The code a status carries (see [`CODE_KEY`]), or one made from its gRPC code.
pub(crate) fn code_of(status: &Status) -> String {
    match status.metadata().get(CODE_KEY).and_then(|v| v.to_str().ok()) {
        Some(code) => code.to_string(),
        None => code_made_from(status.code()),
    }
}

/// The code of a refusal that has none of its own (one the gRPC library made, say): as
/// docs/protocol.md's "Refusal codes" says, `bad_request` for `INVALID_ARGUMENT`, otherwise
/// the gRPC code's name in lower case.
pub(crate) fn code_made_from(code: tonic::Code) -> String {
    match code {
        tonic::Code::InvalidArgument => "bad_request".to_string(),
        code => format!("{code:?}").to_lowercase(),
    }
}

/// Gives a failed call's status, in `headers` (a reply that is nothing but its status) or
/// trailers (a stream's end), the code it lacks, so that every failed call carries one.
pub(crate) fn give_code(headers: &mut http::HeaderMap) {
    if headers.contains_key(CODE_KEY) {
        return;
    }
    let Some(code) =
        headers.get("grpc-status").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<i32>().ok())
    else {
        return;
    };
    let code = tonic::Code::from_i32(code);
    if code == tonic::Code::Ok {
        return;
    }
    if let Ok(value) = http::HeaderValue::from_str(&code_made_from(code)) {
        headers.insert(CODE_KEY, value);
    }
}

/// Why a play stream's upward half could not be read, as the status that ends the stream:
/// a message that does not decode is the client's error (INVALID_ARGUMENT), not the
/// server's (tonic says INTERNAL).
pub(crate) fn upward_error(status: &Status) -> Status {
    let message: String = status.message().chars().take(200).collect();
    match status.code() {
        tonic::Code::Internal | tonic::Code::Unknown => {
            bad_request(format!("request: a message could not be read: {message}"))
        }
        tonic::Code::OutOfRange | tonic::Code::ResourceExhausted => {
            Status::resource_exhausted(format!("request: a message is over the size limit: {message}"))
        }
        tonic::Code::InvalidArgument => bad_request(message),
        _ => Status::new(status.code(), message),
    }
}

/// What a stream's reader is sent for one delivery: the update, or how the stream ends.
pub(crate) fn delivered(delivery: Delivery) -> Result<pb::PlayUpdate, Status> {
    match delivery {
        Delivery::Update(update) => Ok(update.into_update()),
        Delivery::End(StreamEnd::Closed) => {
            Err(refused("table_closed", Status::not_found("the host closed the table")))
        }
        Delivery::End(StreamEnd::ShuttingDown) => {
            Err(refused("shutting_down", Status::unavailable("the server is shutting down")))
        }
        Delivery::End(StreamEnd::Unsaved) => Err(refused(
            "table_unsaved",
            Status::unavailable("the server could not save the table; it is back when the server restarts"),
        )),
        Delivery::End(StreamEnd::Dropped) => Err(refused(
            "connection_dropped",
            Status::unavailable(
                "the server dropped this stream on purpose (a bot check): reconnect and resume with `since`",
            ),
        )),
        Delivery::End(StreamEnd::Moved) => Err(refused(
            "table_moved",
            Status::unavailable("the table moved to another node of the cluster: reconnect to resume"),
        )),
        // A `reseated` update came just before: clients read that, not this text.
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Removed)) => {
            Err(refused("removed", Status::unauthenticated("the host removed you from the table")))
        }
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Left)) => {
            Err(refused("left", Status::unauthenticated("you left the table")))
        }
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Away)) => Err(refused(
            "taken_out",
            Status::unauthenticated(
                "you were taken out of the game: away for a whole round, or out of time twice in a row",
            ),
        )),
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Renumbered)) => Err(refused(
            "renumbered",
            Status::aborted("the seats were renumbered: reconnect with your token"),
        )),
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Relinked)) => Err(refused(
            "relinked",
            Status::aborted("the host revoked this seat's rejoin link: reconnect with your own token"),
        )),
        Delivery::End(StreamEnd::Reseated(_)) => {
            Err(refused("table_reset", Status::aborted("the table was reset: reconnect with your token")))
        }
    }
}

// The bounds on what a request may carry are the refusals' own, so the services and the
// parts below them refuse an oversized field the same way.
pub(crate) use crate::refusal::{MAX_NAME_FIELD, bounded, check_settings};

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// A refusal leaves as the status its kind says, with its code and any wait in the
    /// metadata; a table's and an account's refusals pass through the same mapping.
    #[test]
    fn a_refusal_leaves_with_its_kind_code_and_wait() {
        let refusal = crate::refusal::refused("no_such_pool", Refusal::not_found("no pool \"x\""));
        let status = Status::from(refusal);
        assert_eq!(status.code(), tonic::Code::NotFound);
        assert_eq!(status.message(), "no pool \"x\"");
        assert_eq!(code_of(&status), "no_such_pool");
        assert!(status.metadata().get(RETRY_AFTER_KEY).is_none());

        let busy = super::status(TableError::RateLimited { per_second: 5, retry_after_millis: 120 });
        assert_eq!(busy.code(), tonic::Code::ResourceExhausted);
        assert_eq!(code_of(&busy), "rate_limited");
        assert_eq!(busy.metadata().get(RETRY_AFTER_KEY).and_then(|v| v.to_str().ok()), Some("120"));

        let taken = Status::from(Refusal::from(crate::accounts::AccountError::NameTaken("Robo".into())));
        assert_eq!(taken.code(), tonic::Code::AlreadyExists);
        assert_eq!(code_of(&taken), "name_taken");

        // No code of its own: one made from its kind.
        let plain = Status::from(Refusal::unavailable("the ladder has stopped"));
        assert_eq!(plain.code(), tonic::Code::Unavailable);
        assert_eq!(code_of(&plain), "unavailable");
    }
    use std::path::{Path, PathBuf};

    /// The `.rs` files under `dir`, recursively.
    fn sources(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                found.extend(sources(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
        found
    }

    /// The code-like string literals (`snake_case`) that follow `after` in `text`, past any
    /// whitespace.
    fn literals_after(text: &str, after: &str) -> Vec<String> {
        let mut found = Vec::new();
        for (i, _) in text.match_indices(after) {
            let rest = text[i + after.len()..].trim_start();
            if let Some(quoted) = rest.strip_prefix('"')
                && let Some(end) = quoted.find('"')
                && end > 0
                && quoted[..end].chars().all(|c| c.is_ascii_lowercase() || c == '_')
            {
                found.push(quoted[..end].to_string());
            }
        }
        found
    }

    /// The codes a `fn NAME(&self)` of `file` returns from its match arms (`=> "code"`).
    fn arms(file: &Path, function: &str) -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap();
        let start = text.find(function).unwrap_or_else(|| panic!("{function} in {}", file.display()));
        let body = &text[start..];
        let body = &body[..body.find("\n    }\n").unwrap()];
        literals_after(body, "=> ")
    }

    /// Every code the server's sources send is in [`super::CODES`], and every one there is
    /// sent somewhere: the table cannot fall behind the code, nor keep a code nobody sends.
    #[test]
    fn every_code_the_sources_send_is_in_the_one_table() {
        let server = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut sent = BTreeSet::new();
        for file in sources(&server.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            sent.extend(literals_after(&text, "refused("));
        }
        sent.extend(arms(&server.join("src/table/error.rs"), "pub fn code(&self)"));
        sent.extend(arms(&server.join("src/accounts.rs"), "pub fn code(&self)"));
        sent.extend(arms(&server.join("../rules/src/error.rs"), "pub fn reason(&self)"));
        let table: BTreeSet<String> = super::CODES.iter().map(|c| c.to_string()).collect();
        assert_eq!(table.len(), super::CODES.len(), "a code listed twice");
        let missing: Vec<&String> = sent.difference(&table).collect();
        let stale: Vec<&String> = table.difference(&sent).collect();
        assert!(missing.is_empty(), "sent but not in status::CODES: {missing:?}");
        assert!(stale.is_empty(), "in status::CODES but sent nowhere: {stale:?}");
    }
}
