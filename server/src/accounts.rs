//! The Accounts service: names of their own on this server, and the API tokens that prove
//! them.
//!
//! A name is checked by the rules of a seat's name, and compared by its key: case folded,
//! compatibility forms folded (NFKC: "Ｒｏｂｏ" is "robo") and lookalike characters mapped to
//! one prototype (UTS #39 skeletons: "Rоbо" with Cyrillic o's is "robo"). Two names with one
//! key are one name. A token is `dudo_` and 64 hex digits of the OS's CSPRNG; only its SHA-256
//! is kept. The admin token, the operator's, is hashed at start and never kept or logged.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_store::StoreError;
use dudo_store::accounts::{Account, AccountKind, ApiToken, NewToken};
use rand::Rng;
use sha2::{Digest, Sha256};

use crate::refusal::{Kind, Refusal};
use crate::table::{self, SeatAccount};

/// What every API token starts with: tells it from a seat token, and lets secret scanners
/// find one pasted where it should not be.
pub const TOKEN_PREFIX: &str = "dudo_";
/// The longest token label, in characters.
pub(crate) const MAX_LABEL_CHARS: usize = 64;
/// Registrations one address may make in an hour.
pub(crate) const REGISTRATIONS_PER_HOUR: u32 = 20;

/// Who may register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Registration {
    /// Anyone.
    #[default]
    Open,
    /// Only the admin (with the admin token).
    Admin,
}

/// The server's account settings and the registrations counted per address.
#[derive(Clone, Default)]
pub struct AccountSettings {
    pub registration: Registration,
    /// SHA-256 of the admin token (none: no admin).
    admin: Option<[u8; 32]>,
    registrations: HourlyCounts,
}

impl AccountSettings {
    pub fn new(registration: Registration, admin_token: Option<&str>) -> AccountSettings {
        let admin = admin_token.map(str::trim).filter(|t| !t.is_empty()).map(|t| Sha256::digest(t).into());
        AccountSettings { registration, admin, registrations: HourlyCounts::default() }
    }

    pub(crate) fn is_admin(&self, bearer: Option<&str>) -> bool {
        let hash: Option<[u8; 32]> = bearer.map(|b| Sha256::digest(b).into());
        self.admin.is_some() && hash == self.admin
    }

    /// Counts a registration from `ip`; refused, with the wait until its hour ends, if the
    /// address has made its hour's worth.
    pub(crate) fn count_registration(&self, ip: Option<IpAddr>) -> Result<(), AccountError> {
        self.registrations.count(ip, REGISTRATIONS_PER_HOUR).map_err(|wait| {
            AccountError::TooManyRegistrations {
                retry_after_millis: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
            }
        })
    }

    /// Gives back a registration counted for `ip` that did not happen (a name taken).
    pub(crate) fn uncount_registration(&self, ip: Option<IpAddr>) {
        self.registrations.uncount(ip);
    }
}

/// What each address did in its hour (from its first count in it): registrations, tournaments
/// made.
#[derive(Clone, Default)]
pub(crate) struct HourlyCounts(Arc<Mutex<HashMap<IpAddr, (Instant, u32)>>>);

impl HourlyCounts {
    /// Counts one for `ip`; once it is past `most` this hour, the wait until the hour ends.
    pub(crate) fn count(&self, ip: Option<IpAddr>, most: u32) -> Result<(), Duration> {
        let (Some(ip), Ok(mut seen)) = (ip, self.0.lock()) else { return Ok(()) };
        let hour = Duration::from_secs(3600);
        if seen.len() > 10_000 {
            seen.retain(|_, (since, _)| since.elapsed() < hour);
        }
        let (since, n) = seen.entry(ip).or_insert((Instant::now(), 0));
        if since.elapsed() >= hour {
            *since = Instant::now();
            *n = 0;
        }
        if *n >= most {
            return Err(hour.saturating_sub(since.elapsed()));
        }
        *n += 1;
        Ok(())
    }

    /// Gives back one counted for `ip` that did not happen.
    pub(crate) fn uncount(&self, ip: Option<IpAddr>) {
        if let (Some(ip), Ok(mut seen)) = (ip, self.0.lock())
            && let Some((_, n)) = seen.get_mut(&ip)
        {
            *n = n.saturating_sub(1);
        }
    }
}

/// Why an account call was refused: typed here, mapped to a status once.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("this server keeps no accounts: it runs with --db none")]
    NoStore,
    #[error("name: {0}")]
    BadName(String),
    #[error("name: {0:?} is taken (names differing only in case or in lookalike letters are one name)")]
    NameTaken(String),
    #[error("registration on this server is by its admin only")]
    RegistrationClosed,
    #[error("at most {REGISTRATIONS_PER_HOUR} registrations an hour from one address")]
    TooManyRegistrations { retry_after_millis: u64 },
    #[error("send an account's API token as `authorization: Bearer dudo_…`")]
    NoToken,
    #[error("that API token is unknown or revoked")]
    BadToken,
    #[error("the account {0} is suspended")]
    Suspended(String),
    #[error("only the server's admin may do that")]
    NotAdmin,
    #[error("no account {0:?}")]
    NoSuchAccount(String),
    #[error("id: this account has no token {0:?}")]
    NoSuchToken(String),
    #[error("label: {0}")]
    BadLabel(String),
    #[error(
        "id: that is the account's last active token; make another first (`dudo account token new`), or nobody could sign in to it again"
    )]
    LastToken,
    #[error("an account holds at most {0} tokens (revoked ones count)")]
    TooManyTokens(usize),
    #[error("the server's database: {0}")]
    Store(String),
}

impl AccountError {
    pub fn code(&self) -> &'static str {
        match self {
            AccountError::NoStore => "no_accounts",
            AccountError::BadName(_) => "bad_name",
            AccountError::NameTaken(_) => "name_taken",
            AccountError::RegistrationClosed => "registration_closed",
            AccountError::TooManyRegistrations { .. } => "rate_limited",
            AccountError::NoToken => "no_token",
            AccountError::BadToken => "bad_token",
            AccountError::Suspended(_) => "suspended",
            AccountError::NotAdmin => "not_admin",
            AccountError::NoSuchAccount(_) => "no_such_account",
            AccountError::NoSuchToken(_) => "no_such_token",
            AccountError::BadLabel(_) => "bad_request",
            AccountError::LastToken => "last_token",
            AccountError::TooManyTokens(_) => "too_many_tokens",
            AccountError::Store(_) => "store",
        }
    }
}

impl From<StoreError> for AccountError {
    fn from(e: StoreError) -> AccountError {
        match e {
            StoreError::NameTaken { name } => AccountError::NameTaken(name),
            StoreError::TooManyTokens { max } => AccountError::TooManyTokens(max),
            other => {
                tracing::error!(error = %other, "an account query failed");
                AccountError::Store(other.to_string())
            }
        }
    }
}

impl AccountError {
    /// What kind of "no" the refusal is.
    pub fn kind(&self) -> Kind {
        match self {
            AccountError::NoStore | AccountError::LastToken => Kind::FailedPrecondition,
            AccountError::BadName(_) | AccountError::BadLabel(_) => Kind::InvalidArgument,
            AccountError::NameTaken(_) => Kind::AlreadyExists,
            AccountError::RegistrationClosed | AccountError::Suspended(_) | AccountError::NotAdmin => {
                Kind::PermissionDenied
            }
            AccountError::TooManyRegistrations { .. } | AccountError::TooManyTokens(_) => {
                Kind::ResourceExhausted
            }
            AccountError::NoToken | AccountError::BadToken => Kind::Unauthenticated,
            AccountError::NoSuchAccount(_) | AccountError::NoSuchToken(_) => Kind::NotFound,
            AccountError::Store(_) => Kind::Unavailable,
        }
    }
}

impl From<AccountError> for Refusal {
    fn from(e: AccountError) -> Refusal {
        let refusal = crate::refusal::refused(e.code(), Refusal::new(e.kind(), e.to_string()));
        match e {
            AccountError::TooManyRegistrations { retry_after_millis } => {
                refusal.retry_after(retry_after_millis)
            }
            _ => refusal,
        }
    }
}

/// Names compared as they look (see [`crate::table::seats::name_key`]): one name whatever
/// case, lookalike letters, spaces or marks it is written in.
pub use crate::table::seats::name_key;

/// A new API token and what the store keeps of it.
pub(crate) fn new_token(label: &str, at: i64) -> (String, NewToken) {
    let secret: [u8; 32] = rand::rng().random();
    let token = format!("{TOKEN_PREFIX}{}", table::proofs::hex(&secret));
    let id: [u8; 6] = rand::rng().random();
    let hash = Sha256::digest(token.as_bytes()).to_vec();
    (token, NewToken { id: table::proofs::hex(&id), label: label.to_string(), hash, created_at: at })
}

pub(crate) fn label(text: &str) -> Result<String, AccountError> {
    let label = text.trim();
    let chars = label.chars().count();
    if chars > MAX_LABEL_CHARS {
        return Err(AccountError::BadLabel(format!("{chars} characters; at most {MAX_LABEL_CHARS}")));
    }
    if let Err(c) = table::seats::plain_text(label) {
        return Err(AccountError::BadLabel(format!(
            "it holds U+{:04X}; labels are plain text",
            u32::from(c)
        )));
    }
    Ok(label.to_string())
}

pub(crate) fn millis(t: i64) -> u64 {
    u64::try_from(t).unwrap_or(0)
}

pub fn kind_to_wire(kind: AccountKind) -> pb::AccountKind {
    match kind {
        AccountKind::Person => pb::AccountKind::Person,
        AccountKind::Bot => pb::AccountKind::Bot,
    }
}

pub(crate) fn account_to_wire(a: &Account) -> pb::Account {
    pb::Account {
        name: a.name.clone(),
        kind: kind_to_wire(a.kind) as i32,
        created_unix_millis: millis(a.created_at),
        suspended_unix_millis: a.suspended_at.map(millis),
    }
}

pub(crate) fn token_to_wire(t: &ApiToken) -> pb::ApiTokenInfo {
    pb::ApiTokenInfo {
        id: t.id.clone(),
        label: t.label.clone(),
        created_unix_millis: millis(t.created_at),
        revoked_unix_millis: t.revoked_at.map(millis),
    }
}

/// Who is calling an account method.
pub(crate) enum Caller {
    Admin,
    Account(Account),
}

/// What the account calls read, lent by the node for a call: who may register, the admin's
/// token, and the store the accounts are kept in.
#[derive(Clone, Copy)]
pub(crate) struct Accounts<'a> {
    pub(crate) settings: &'a AccountSettings,
    pub(crate) store: Option<&'a dudo_store::Store>,
}

impl<'a> Accounts<'a> {
    pub(crate) fn account_store(&self) -> Result<&'a dudo_store::Store, AccountError> {
        self.store.ok_or(AccountError::NoStore)
    }

    /// The account whose API token `bearer` is: refused if the token is unknown or revoked,
    /// or the account suspended.
    pub(crate) async fn account_of_token(&self, bearer: &str) -> Result<Account, AccountError> {
        let hash = Sha256::digest(bearer.as_bytes());
        let (account, _) =
            self.account_store()?.account_by_token(&hash).await?.ok_or(AccountError::BadToken)?;
        if account.suspended_at.is_some() {
            return Err(AccountError::Suspended(account.name));
        }
        Ok(account)
    }

    /// The account an API token belongs to, or why not.
    pub(crate) async fn account_of_api_token(&self, token: &str) -> Result<Account, Refusal> {
        Ok(self.account_of_token(token).await?)
    }

    /// Who calls, from the bearer token the call carries.
    pub(crate) async fn caller(&self, bearer: Option<&str>) -> Result<Caller, AccountError> {
        let bearer = bearer.ok_or(AccountError::NoToken)?;
        if self.settings.is_admin(Some(bearer)) {
            return Ok(Caller::Admin);
        }
        Ok(Caller::Account(self.account_of_token(bearer).await?))
    }

    /// The account an admin names, or the caller's own.
    pub(crate) async fn whose(&self, caller: Caller, named: &str) -> Result<Account, AccountError> {
        match caller {
            Caller::Account(a) if named.trim().is_empty() => Ok(a),
            Caller::Account(_) => Err(AccountError::NotAdmin),
            Caller::Admin => self
                .account_store()?
                .account_by_key(&name_key(named.trim()))
                .await?
                .ok_or_else(|| AccountError::NoSuchAccount(named.chars().take(32).collect())),
        }
    }

    /// The account a `CreateTable` or `JoinTable` seats, from its API token; none for a
    /// guest (no token, or a seat token sent by habit). A guest may not take a name an
    /// account holds.
    pub(crate) async fn seat_account(
        &self,
        bearer: Option<&str>,
        name: &str,
    ) -> Result<(String, Option<SeatAccount>), Refusal> {
        match bearer.filter(|b| b.starts_with(TOKEN_PREFIX)) {
            Some(token) => {
                let account = self.account_of_token(token).await?;
                if !name.trim().is_empty() && name_key(name.trim()) != name_key(&account.name) {
                    return Err(AccountError::BadName(format!(
                        "this token seats the account {}; leave the name empty or give that one",
                        account.name
                    ))
                    .into());
                }
                let seat = SeatAccount { id: account.id, kind: kind_to_wire(account.kind) };
                Ok((account.name, Some(seat)))
            }
            None => {
                let name = table::seats::seat_name(name).map_err(Refusal::from)?;
                if let Some(store) = self.store
                    && !name.is_empty()
                    && store.account_by_key(&name_key(&name)).await.map_err(AccountError::from)?.is_some()
                {
                    return Err(AccountError::NameTaken(name).into());
                }
                Ok((name, None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::name_key;

    #[test]
    pub(crate) fn names_that_differ_in_case_width_or_lookalike_letters_share_a_key() {
        let robo = name_key("Robo");
        for same in ["robo", "ROBO", "Ｒｏｂｏ", "R\u{043E}b\u{043E}", "Rob\u{03BF}", "R0bo"] {
            assert_eq!(name_key(same), robo, "{same}");
        }
        for (a, b) in [("AIice", "Alice"), ("PayPaI", "Paypal"), ("ALICE", "alice"), ("A1ice", "Alice")] {
            assert_eq!(name_key(a), name_key(b), "{a} and {b}");
        }
        assert_ne!(name_key("Robot"), robo);
        assert_ne!(name_key("Ana"), name_key("Ada"));
        // From the hostile try: a dotless i under a combining dot, a no-break space.
        for lookalike in ["Al\u{0131}\u{0307}ce", "Al\u{00A0}ice", "Al ice"] {
            assert_eq!(name_key(lookalike), name_key("Alice"), "{lookalike:?}");
        }
    }
}
