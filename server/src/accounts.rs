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
use dudo_proto::v1::accounts_server::Accounts;
use dudo_store::StoreError;
use dudo_store::accounts::{Account, AccountKind, ApiToken, NewToken};
use rand::Rng;
use sha2::{Digest, Sha256};
use tonic::{Request, Response, Status};

use crate::service::{CODE_KEY, Dudo};
use crate::table::{self, SeatAccount};

/// What every API token starts with: tells it from a seat token, and lets secret scanners
/// find one pasted where it should not be.
pub const TOKEN_PREFIX: &str = "dudo_";
/// The longest token label, in characters.
const MAX_LABEL_CHARS: usize = 64;
/// Registrations one address may make in an hour.
const REGISTRATIONS_PER_HOUR: u32 = 20;

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
    registrations: Arc<Mutex<HashMap<IpAddr, (Instant, u32)>>>,
}

impl AccountSettings {
    pub fn new(registration: Registration, admin_token: Option<&str>) -> AccountSettings {
        let admin = admin_token.map(str::trim).filter(|t| !t.is_empty()).map(|t| Sha256::digest(t).into());
        AccountSettings { registration, admin, registrations: Arc::default() }
    }

    fn is_admin(&self, bearer: Option<&str>) -> bool {
        let hash: Option<[u8; 32]> = bearer.map(|b| Sha256::digest(b).into());
        self.admin.is_some() && hash == self.admin
    }

    /// Counts a registration from `ip`; false if the address has made its hour's worth.
    fn count_registration(&self, ip: Option<IpAddr>) -> bool {
        let (Some(ip), Ok(mut seen)) = (ip, self.registrations.lock()) else { return true };
        let hour = Duration::from_secs(3600);
        if seen.len() > 10_000 {
            seen.retain(|_, (since, _)| since.elapsed() < hour);
        }
        let (since, n) = seen.entry(ip).or_insert((Instant::now(), 0));
        if since.elapsed() >= hour {
            *since = Instant::now();
            *n = 0;
        }
        *n += 1;
        *n <= REGISTRATIONS_PER_HOUR
    }

    /// Gives back a registration counted for `ip` that did not happen (a name taken).
    fn uncount_registration(&self, ip: Option<IpAddr>) {
        if let (Some(ip), Ok(mut seen)) = (ip, self.registrations.lock())
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
    TooManyRegistrations,
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
            AccountError::TooManyRegistrations => "rate_limited",
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

impl From<AccountError> for Status {
    fn from(e: AccountError) -> Status {
        let message = e.to_string();
        let mut status = match &e {
            AccountError::NoStore | AccountError::LastToken => Status::failed_precondition(message),
            AccountError::BadName(_) | AccountError::BadLabel(_) => Status::invalid_argument(message),
            AccountError::NameTaken(_) => Status::already_exists(message),
            AccountError::RegistrationClosed | AccountError::Suspended(_) | AccountError::NotAdmin => {
                Status::permission_denied(message)
            }
            AccountError::TooManyRegistrations | AccountError::TooManyTokens(_) => {
                Status::resource_exhausted(message)
            }
            AccountError::NoToken | AccountError::BadToken => Status::unauthenticated(message),
            AccountError::NoSuchAccount(_) | AccountError::NoSuchToken(_) => Status::not_found(message),
            AccountError::Store(_) => Status::unavailable(message),
        };
        if let Ok(code) = e.code().parse() {
            status.metadata_mut().insert(CODE_KEY, code);
        }
        status
    }
}

/// What two names are compared by: compatibility forms folded (NFKC), lookalikes mapped
/// to one prototype (UTS #39 skeletons) before case is folded, since folding first would
/// turn a capital I into an i that no longer looks like the l it passes for ("AIice" for
/// "Alice"), then case folded and the one lowercase pair left that looks alike in many
/// fonts (i and l, once a capital I is an l) made one. Spaces and combining marks are left
/// out: "Al ice" (with a no-break space) and "Alı̇ce" (a dotless i under a combining dot)
/// pass for "Alice" on a screen.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let compatible: String = name.nfkc().collect();
    let skeleton: String = unicode_security::confusable_detection::skeleton(&compatible).collect();
    let folded: String = skeleton.nfkc().flat_map(char::to_lowercase).collect();
    let again: String = unicode_security::confusable_detection::skeleton(&folded).collect();
    again
        .chars()
        .flat_map(char::to_lowercase)
        // Letters and digits only: spaces, combining marks and punctuation ("Bob" and "Bob܁",
        // a Syriac full stop) pass for one another on a screen.
        .filter(|&c| c.is_alphanumeric() && !is_combining_mark(c))
        .map(|c| if c == 'i' { 'l' } else { c })
        .collect()
}

/// The bearer token a request carries, if any.
pub fn bearer<T>(request: &Request<T>) -> Option<&str> {
    let text = request.metadata().get("authorization")?.to_str().ok()?;
    Some(text.strip_prefix("Bearer ").unwrap_or(text).trim()).filter(|t| !t.is_empty())
}

/// A new API token and what the store keeps of it.
fn new_token(label: &str, at: i64) -> (String, NewToken) {
    let secret: [u8; 32] = rand::rng().random();
    let token = format!("{TOKEN_PREFIX}{}", table::proofs::hex(&secret));
    let id: [u8; 6] = rand::rng().random();
    let hash = Sha256::digest(token.as_bytes()).to_vec();
    (token, NewToken { id: table::proofs::hex(&id), label: label.to_string(), hash, created_at: at })
}

fn label(text: &str) -> Result<String, AccountError> {
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

fn millis(t: i64) -> u64 {
    u64::try_from(t).unwrap_or(0)
}

pub fn kind_to_wire(kind: AccountKind) -> pb::AccountKind {
    match kind {
        AccountKind::Person => pb::AccountKind::Person,
        AccountKind::Bot => pb::AccountKind::Bot,
    }
}

fn account_to_wire(a: &Account) -> pb::Account {
    pb::Account {
        name: a.name.clone(),
        kind: kind_to_wire(a.kind) as i32,
        created_unix_millis: millis(a.created_at),
        suspended_unix_millis: a.suspended_at.map(millis),
    }
}

fn token_to_wire(t: &ApiToken) -> pb::ApiTokenInfo {
    pb::ApiTokenInfo {
        id: t.id.clone(),
        label: t.label.clone(),
        created_unix_millis: millis(t.created_at),
        revoked_unix_millis: t.revoked_at.map(millis),
    }
}

/// Who is calling an account method.
enum Caller {
    Admin,
    Account(Account),
}

impl Dudo {
    fn account_store(&self) -> Result<&dudo_store::Store, AccountError> {
        self.store().ok_or(AccountError::NoStore)
    }

    /// The account whose API token `bearer` is: refused if the token is unknown or revoked,
    /// or the account suspended.
    async fn account_of_token(&self, bearer: &str) -> Result<Account, AccountError> {
        let hash = Sha256::digest(bearer.as_bytes());
        let (account, _) =
            self.account_store()?.account_by_token(&hash).await?.ok_or(AccountError::BadToken)?;
        if account.suspended_at.is_some() {
            return Err(AccountError::Suspended(account.name));
        }
        Ok(account)
    }

    /// The account an API token belongs to, or why not, as a status.
    pub(crate) async fn account_of_api_token(&self, token: &str) -> Result<Account, Status> {
        Ok(self.account_of_token(token).await?)
    }

    async fn caller<T>(&self, request: &Request<T>) -> Result<Caller, AccountError> {
        let bearer = bearer(request).ok_or(AccountError::NoToken)?;
        if self.account_settings().is_admin(Some(bearer)) {
            return Ok(Caller::Admin);
        }
        Ok(Caller::Account(self.account_of_token(bearer).await?))
    }

    /// The account an admin names, or the caller's own.
    async fn whose(&self, caller: Caller, named: &str) -> Result<Account, AccountError> {
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
    pub(crate) async fn seat_account<T>(
        &self,
        request: &Request<T>,
        name: &str,
    ) -> Result<(String, Option<SeatAccount>), Status> {
        match bearer(request).filter(|b| b.starts_with(TOKEN_PREFIX)) {
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
                let name = table::seats::seat_name(name).map_err(crate::service::status)?;
                if let Some(store) = self.store()
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

#[tonic::async_trait]
impl Accounts for Dudo {
    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::Registered>, Status> {
        let store = self.account_store()?;
        let settings = self.account_settings();
        let admin = settings.is_admin(bearer(&request));
        if settings.registration == Registration::Admin && !admin {
            return Err(AccountError::RegistrationClosed.into());
        }
        let ip = request.remote_addr().map(|a| a.ip());
        let req = request.into_inner();
        let name = table::seats::seat_name(&req.name).map_err(|e| match e {
            table::TableError::BadName(why) => AccountError::BadName(why),
            other => AccountError::BadName(other.to_string()),
        })?;
        if name.is_empty() {
            return Err(AccountError::BadName("empty".into()).into());
        }
        let token_label = label(&req.token_label)?;
        if !admin && !settings.count_registration(ip) {
            return Err(AccountError::TooManyRegistrations.into());
        }
        let kind = match pb::AccountKind::try_from(req.kind) {
            Ok(pb::AccountKind::Bot) => AccountKind::Bot,
            _ => AccountKind::Person,
        };
        let now = table::unix_millis();
        let id: [u8; 12] = rand::rng().random();
        let account =
            Account { id: table::proofs::hex(&id), name, kind, created_at: now, suspended_at: None };
        let (token, stored) = new_token(&token_label, now);
        // Counted before (so registrations at once cannot all pass), given back if refused.
        if let Err(e) = store.create_account(&account, &name_key(&account.name), &stored).await {
            if !admin {
                settings.uncount_registration(ip);
            }
            return Err(AccountError::from(e).into());
        }
        tracing::info!(account = %account.name, kind = kind.as_str(), "account registered");
        let info = token_to_wire(&ApiToken {
            id: stored.id,
            label: stored.label,
            created_at: now,
            revoked_at: None,
        });
        Ok(Response::new(pb::Registered {
            account: Some(account_to_wire(&account)),
            token: Some(pb::NewApiToken { token, info: Some(info) }),
        }))
    }

    async fn who_am_i(&self, request: Request<pb::WhoAmIRequest>) -> Result<Response<pb::Account>, Status> {
        match self.caller(&request).await? {
            Caller::Account(a) => Ok(Response::new(account_to_wire(&a))),
            Caller::Admin => Err(AccountError::BadToken.into()),
        }
    }

    async fn new_token(
        &self,
        request: Request<pb::NewTokenRequest>,
    ) -> Result<Response<pb::NewApiToken>, Status> {
        let Caller::Account(account) = self.caller(&request).await? else {
            return Err(AccountError::BadToken.into());
        };
        let token_label = label(&request.get_ref().label)?;
        let (token, stored) = new_token(&token_label, table::unix_millis());
        self.account_store()?.add_token(&account.id, &stored).await.map_err(AccountError::from)?;
        let info = token_to_wire(&ApiToken {
            id: stored.id,
            label: stored.label,
            created_at: stored.created_at,
            revoked_at: None,
        });
        Ok(Response::new(pb::NewApiToken { token, info: Some(info) }))
    }

    async fn list_tokens(
        &self,
        request: Request<pb::ListTokensRequest>,
    ) -> Result<Response<pb::ListTokensResponse>, Status> {
        let caller = self.caller(&request).await?;
        let account = self.whose(caller, &request.get_ref().account).await?;
        let tokens = self.account_store()?.tokens(&account.id).await.map_err(AccountError::from)?;
        Ok(Response::new(pb::ListTokensResponse { tokens: tokens.iter().map(token_to_wire).collect() }))
    }

    async fn revoke_token(
        &self,
        request: Request<pb::RevokeTokenRequest>,
    ) -> Result<Response<pb::ApiTokenInfo>, Status> {
        let caller = self.caller(&request).await?;
        let by_admin = matches!(caller, Caller::Admin);
        let req = request.into_inner();
        let account = self.whose(caller, &req.account).await?;
        let id: String = req.id.trim().chars().take(32).collect();
        // The owner may not lock itself out; the admin may (a leaked token, say).
        if !by_admin {
            let tokens = self.account_store()?.tokens(&account.id).await.map_err(AccountError::from)?;
            let mut active = tokens.iter().filter(|t| t.revoked_at.is_none());
            if active.clone().count() == 1 && active.next().is_some_and(|t| t.id == id) {
                return Err(AccountError::LastToken.into());
            }
        }
        let revoked = self
            .account_store()?
            .revoke_token(&account.id, &id, table::unix_millis())
            .await
            .map_err(AccountError::from)?
            .ok_or(AccountError::NoSuchToken(id))?;
        tracing::info!(account = %account.name, token = %revoked.id, "API token revoked");
        Ok(Response::new(token_to_wire(&revoked)))
    }

    async fn suspend_account(
        &self,
        request: Request<pb::SuspendAccountRequest>,
    ) -> Result<Response<pb::Account>, Status> {
        if !self.account_settings().is_admin(bearer(&request)) {
            return Err(AccountError::NotAdmin.into());
        }
        let req = request.into_inner();
        let mut account = self.whose(Caller::Admin, &req.name).await?;
        account.suspended_at = req.suspended.then(table::unix_millis);
        self.account_store()?
            .suspend_account(&account.id, account.suspended_at)
            .await
            .map_err(AccountError::from)?;
        tracing::info!(account = %account.name, suspended = req.suspended, "account suspension changed");
        Ok(Response::new(account_to_wire(&account)))
    }
}

#[cfg(test)]
mod tests {
    use super::name_key;

    #[test]
    fn names_that_differ_in_case_width_or_lookalike_letters_share_a_key() {
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
