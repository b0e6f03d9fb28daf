//! Where refusals meet gRPC status codes, once: a table's refusal ([`status`]), a request
//! refused before any table sees it (`bad_request`), how a stream ends (`delivered`),
//! and the stable code every refusal carries in its metadata ([`CODE_KEY`]), which clients
//! read instead of the text. The bounds on what a request may carry are here too, so every
//! service refuses an oversized field the same way.

use dudo_proto::v1 as pb;
use tonic::Status;

use crate::table::{self, Delivery, StreamEnd, TableError};

/// The metadata key carrying a refusal's stable code (`TableError::code`), beside the text.
pub const CODE_KEY: &str = "dudo-code";
/// The metadata key saying how long to wait before calling again, in milliseconds.
pub const RETRY_AFTER_KEY: &str = "dudo-retry-after-ms";

/// A table's refusal as a gRPC status: the one place table errors meet status codes.
pub fn status(e: TableError) -> Status {
    use table::error::Kind;
    let message = e.to_string();
    let mut status = match e.kind() {
        Kind::InvalidArgument => Status::invalid_argument(message),
        Kind::FailedPrecondition => Status::failed_precondition(message),
        Kind::Unauthenticated => Status::unauthenticated(message),
        Kind::PermissionDenied => Status::permission_denied(message),
        Kind::ResourceExhausted => Status::resource_exhausted(message),
        Kind::Internal => Status::internal(message),
    };
    if let Ok(code) = e.code().parse() {
        status.metadata_mut().insert(CODE_KEY, code);
    }
    if let TableError::RateLimited { retry_after_millis, .. } = e
        && let Ok(wait) = retry_after_millis.to_string().parse()
    {
        status.metadata_mut().insert(RETRY_AFTER_KEY, wait);
    }
    status
}

/// `status` carrying the stable `code` clients read (see [`CODE_KEY`]).
pub(crate) fn refused(code: &'static str, mut status: Status) -> Status {
    status.metadata_mut().insert(CODE_KEY, tonic::metadata::MetadataValue::from_static(code));
    status
}

/// A request the service refuses before any table sees it, with the field at fault named in
/// the text and `bad_request` as its code.
pub(crate) fn bad_request(message: impl Into<String>) -> Status {
    refused("bad_request", Status::invalid_argument(message))
}

/// The code a status carries (see [`CODE_KEY`]), or one made from its gRPC code.
pub(crate) fn code_of(status: &Status) -> String {
    match status.metadata().get(CODE_KEY).and_then(|v| v.to_str().ok()) {
        Some(code) => code.to_string(),
        None if status.code() == tonic::Code::InvalidArgument => "bad_request".to_string(),
        None => format!("{:?}", status.code()).to_lowercase(),
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
        Delivery::End(StreamEnd::Reseated(_)) => {
            Err(refused("table_reset", Status::aborted("the table was reset: reconnect with your token")))
        }
    }
}

/// The longest preset, rule-set or rating-pool name, and setting path, in characters.
pub(crate) const MAX_NAME_FIELD: usize = 64;
/// The longest setting value, in characters.
pub(crate) const MAX_SETTING_VALUE: usize = 256;
/// Settings one call may change.
pub(crate) const MAX_SETTINGS: usize = 64;

/// Refuses a string a client set that is longer than the server keeps, naming the field (and
/// never echoing the whole of it).
pub(crate) fn bounded(field: &str, value: &str, max: usize) -> Result<(), Status> {
    let chars = value.chars().count();
    if chars > max {
        return Err(bad_request(format!("{field}: {chars} characters; at most {max}")));
    }
    Ok(())
}

pub(crate) fn check_settings<'a>(
    settings: impl ExactSizeIterator<Item = (&'a str, &'a str)>,
) -> Result<(), Status> {
    if settings.len() > MAX_SETTINGS {
        return Err(bad_request(format!("settings: {}; at most {MAX_SETTINGS}", settings.len())));
    }
    for (path, value) in settings {
        bounded("settings.path", path, MAX_NAME_FIELD)?;
        bounded("settings.value", value, MAX_SETTING_VALUE)?;
    }
    Ok(())
}
