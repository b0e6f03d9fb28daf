//! The Accounts service: registering, who a token is, a token's life, the admin's
//! suspensions. What an account is and how tokens are kept is `crate::accounts`.

use dudo_proto::v1 as pb;
use dudo_proto::v1::accounts_server::Accounts;
use dudo_store::accounts::{Account, AccountKind, ApiToken};
use rand::Rng;
use tonic::{Request, Response, Status};

use crate::table;

use super::bearer;
use crate::accounts::{
    AccountError, Caller, Registration, account_to_wire, label, name_key, new_token, token_to_wire,
};
use crate::node::Dudo;

/// The Accounts service: a thin adapter over the node, which does the work.
pub struct AccountsService {
    node: Dudo,
}

impl AccountsService {
    pub fn new(node: Dudo) -> AccountsService {
        AccountsService { node }
    }
}

#[tonic::async_trait]
impl Accounts for AccountsService {
    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::Registered>, Status> {
        let store = self.node.accounts().account_store()?;
        let settings = self.node.accounts().settings;
        let admin = settings.is_admin(bearer(&request));
        if settings.registration == Registration::Admin && !admin {
            return Err(AccountError::RegistrationClosed.into());
        }
        let ip = super::client_ip(&request);
        let req = request.into_inner();
        let name = table::seats::seat_name(&req.name).map_err(|e| match e {
            table::TableError::BadName(why) => AccountError::BadName(why),
            other => AccountError::BadName(other.to_string()),
        })?;
        if name.is_empty() {
            return Err(AccountError::BadName("empty".into()).into());
        }
        let token_label = label(&req.token_label)?;
        // NONE, the field left out, is a person's (the protocol says so).
        let kind = match pb::AccountKind::try_from(req.kind) {
            Ok(pb::AccountKind::Bot) => AccountKind::Bot,
            Ok(pb::AccountKind::Person | pb::AccountKind::None) => AccountKind::Person,
            Err(_) => {
                return Err(crate::status::bad_request(format!(
                    "kind: no account kind {}; PERSON or BOT",
                    req.kind
                )));
            }
        };
        // Counted last, when nothing else refuses it.
        if !admin {
            settings.count_registration(ip)?;
        }
        let now = table::unix_millis();
        let id: [u8; 12] = rand::rng().random();
        // Kept for the ladder: a pool of people never seats two accounts registered from
        // one address at a table (the admin's registrations are nobody's address).
        let registered_from = ip.filter(|_| !admin).map(|ip| crate::address::of(ip).to_string());
        let account = Account {
            id: table::proofs::hex(&id),
            name,
            kind,
            created_at: now,
            suspended_at: None,
            registered_from,
        };
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
        match self.node.accounts().caller(super::bearer(&request)).await? {
            Caller::Account(a) => Ok(Response::new(account_to_wire(&a))),
            Caller::Admin => Err(AccountError::BadToken.into()),
        }
    }

    async fn new_token(
        &self,
        request: Request<pb::NewTokenRequest>,
    ) -> Result<Response<pb::NewApiToken>, Status> {
        let Caller::Account(account) = self.node.accounts().caller(super::bearer(&request)).await? else {
            return Err(AccountError::BadToken.into());
        };
        let token_label = label(&request.get_ref().label)?;
        let (token, stored) = new_token(&token_label, table::unix_millis());
        self.node
            .accounts()
            .account_store()?
            .add_token(&account.id, &stored)
            .await
            .map_err(AccountError::from)?;
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
        let caller = self.node.accounts().caller(super::bearer(&request)).await?;
        let account = self.node.accounts().whose(caller, &request.get_ref().account).await?;
        let tokens =
            self.node.accounts().account_store()?.tokens(&account.id).await.map_err(AccountError::from)?;
        Ok(Response::new(pb::ListTokensResponse { tokens: tokens.iter().map(token_to_wire).collect() }))
    }

    async fn revoke_token(
        &self,
        request: Request<pb::RevokeTokenRequest>,
    ) -> Result<Response<pb::ApiTokenInfo>, Status> {
        let caller = self.node.accounts().caller(super::bearer(&request)).await?;
        let by_admin = matches!(caller, Caller::Admin);
        let req = request.into_inner();
        let account = self.node.accounts().whose(caller, &req.account).await?;
        let id: String = req.id.trim().chars().take(32).collect();
        // The owner may not lock itself out; the admin may (a leaked token, say).
        if !by_admin {
            let tokens = self
                .node
                .accounts()
                .account_store()?
                .tokens(&account.id)
                .await
                .map_err(AccountError::from)?;
            let mut active = tokens.iter().filter(|t| t.revoked_at.is_none());
            if active.clone().count() == 1 && active.next().is_some_and(|t| t.id == id) {
                return Err(AccountError::LastToken.into());
            }
        }
        let revoked = self
            .node
            .accounts()
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
        match bearer(&request) {
            None => return Err(AccountError::NoToken.into()),
            token if !self.node.accounts().settings.is_admin(token) => {
                return Err(AccountError::NotAdmin.into());
            }
            _ => {}
        }
        let req = request.into_inner();
        let mut account = self.node.accounts().whose(Caller::Admin, &req.name).await?;
        account.suspended_at = req.suspended.then(table::unix_millis);
        self.node
            .accounts()
            .account_store()?
            .suspend_account(&account.id, account.suspended_at)
            .await
            .map_err(AccountError::from)?;
        tracing::info!(account = %account.name, suspended = req.suspended, "account suspension changed");
        Ok(Response::new(account_to_wire(&account)))
    }
}
