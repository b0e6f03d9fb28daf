//! The node lends its parts [`ServerTables`], the narrow handle in `server_tables`: what they
//! may do with tables, and nothing else of the node's.

use tokio::sync::oneshot;

use super::Dudo;
use crate::refusal::Refusal;
use crate::server_tables::{Found, LadderSeat, Made, ServerTable, ServerTables};
use crate::table::Command;

impl ServerTables for Dudo {
    async fn make(&self, order: ServerTable, seats: Vec<LadderSeat>) -> Result<Made, Refusal> {
        self.make_server_table(order, seats).await
    }

    async fn find_anywhere(&self, table: &str) -> Found {
        if self.find(table).is_ok() {
            return match self.watch_internal(table).await {
                Ok(updates) => Found::Open(updates),
                Err(_) => Found::NotYet,
            };
        }
        if self.cluster().is_some() {
            return match self.watch_elsewhere(table).await {
                Ok(Some(updates)) => Found::Open(updates),
                Ok(None) => Found::Gone,
                Err(_) => Found::NotYet,
            };
        }
        match self.store().map(|s| s.table_is_open(table)) {
            Some(open) => match open.await {
                Ok(true) => Found::NotYet,
                Ok(false) => Found::Gone,
                Err(_) => Found::NotYet,
            },
            None => Found::Gone,
        }
    }

    async fn ask_at<T: Send + 'static>(
        &self,
        table: &str,
        command: impl FnOnce(oneshot::Sender<T>) -> Command + Send,
    ) -> Result<T, Refusal> {
        let handle = self.find(table)?;
        self.ask(&handle, command).await
    }

    async fn close(&self, table: &str, host_token: &str) {
        self.close_internal(table, host_token).await;
    }

    async fn close_anywhere(&self, table: &str, host_token: &str) {
        Dudo::close_anywhere(self, table, host_token).await;
    }

    async fn account_of_api_token(&self, token: &str) -> Result<dudo_store::accounts::Account, Refusal> {
        self.accounts().account_of_api_token(token).await
    }

    fn store(&self) -> Option<&dudo_store::Store> {
        Dudo::store(self)
    }

    fn records(&self) -> Result<&dudo_store::Store, Refusal> {
        Dudo::records(self)
    }

    fn stopping(&self) -> &crate::stopping::Stopping {
        Dudo::stopping(self)
    }

    fn runs_ladder_here(&self) -> bool {
        Dudo::runs_ladder_here(self)
    }
}
