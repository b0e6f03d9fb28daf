//! A refusal: the server's "no" in its own terms, before it is anyone's wire format.
//!
//! The node and its parts (the ladder, the tournaments, the accounts) refuse with a
//! [`Refusal`]: what kind of "no" it is, the stable code programs read, and the text people
//! read. They know nothing of gRPC; `status` gives a refusal its status code on the way out,
//! in one place, as it does for a table's `TableError`.

/// What kind of "no" a refusal is; `status` maps each onto one gRPC status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The request itself is at fault (a field, a value).
    InvalidArgument,
    /// What was asked for is not there.
    NotFound,
    /// What was asked to be made is there already.
    AlreadyExists,
    /// Not now: the state of the table, the ladder or the tournament does not allow it.
    FailedPrecondition,
    /// No credentials, or credentials that are not anyone's.
    Unauthenticated,
    /// Credentials that do not allow it.
    PermissionDenied,
    /// Over a limit or a budget.
    ResourceExhausted,
    /// Called off by something else that happened meanwhile.
    Aborted,
    /// Try again: the server is stopping, a table is moving, the database is away.
    Unavailable,
    /// The server's own fault.
    Internal,
}

/// Why the server refused, with the stable code clients read instead of the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    kind: Kind,
    /// One of `status::CODES`; none: the code is made from the kind.
    code: Option<&'static str>,
    message: String,
    /// How long to wait before calling again, when the refusal is a rate.
    retry_after_millis: Option<u64>,
}

impl Refusal {
    pub fn new(kind: Kind, message: impl Into<String>) -> Refusal {
        Refusal { kind, code: None, message: message.into(), retry_after_millis: None }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::InvalidArgument, message)
    }

    pub fn not_found(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::NotFound, message)
    }

    pub fn failed_precondition(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::FailedPrecondition, message)
    }

    pub fn permission_denied(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::PermissionDenied, message)
    }

    pub fn resource_exhausted(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::ResourceExhausted, message)
    }

    pub fn aborted(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::Aborted, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::Unavailable, message)
    }

    pub fn internal(message: impl Into<String>) -> Refusal {
        Refusal::new(Kind::Internal, message)
    }

    /// The refusal waiting `millis` before a call is worth making again.
    pub fn retry_after(mut self, millis: u64) -> Refusal {
        self.retry_after_millis = Some(millis);
        self
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn code(&self) -> Option<&'static str> {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn retry_after_millis(&self) -> Option<u64> {
        self.retry_after_millis
    }
}

/// `refusal` carrying the stable `code` clients read (one of `status::CODES`).
pub(crate) fn refused(code: &'static str, mut refusal: Refusal) -> Refusal {
    refusal.code = Some(code);
    refusal
}

/// A request refused before anything else sees it, with the field at fault named in the
/// text and `bad_request` as its code.
pub(crate) fn bad_request(message: impl Into<String>) -> Refusal {
    refused("bad_request", Refusal::invalid_argument(message))
}

/// The longest preset, rule-set or rating-pool name, and setting path, in characters.
pub(crate) const MAX_NAME_FIELD: usize = 64;
/// The longest setting value, in characters.
pub(crate) const MAX_SETTING_VALUE: usize = 256;
/// Settings one call may change.
pub(crate) const MAX_SETTINGS: usize = 64;

/// Refuses a string a client set that is longer than the server keeps, naming the field (and
/// never echoing the whole of it).
pub(crate) fn bounded(field: &str, value: &str, max: usize) -> Result<(), Refusal> {
    let chars = value.chars().count();
    if chars > max {
        return Err(bad_request(format!("{field}: {chars} characters; at most {max}")));
    }
    Ok(())
}

pub(crate) fn check_settings<'a>(
    settings: impl ExactSizeIterator<Item = (&'a str, &'a str)>,
) -> Result<(), Refusal> {
    if settings.len() > MAX_SETTINGS {
        return Err(bad_request(format!("settings: {}; at most {MAX_SETTINGS}", settings.len())));
    }
    for (path, value) in settings {
        bounded("settings.path", path, MAX_NAME_FIELD)?;
        bounded("settings.value", value, MAX_SETTING_VALUE)?;
    }
    Ok(())
}
