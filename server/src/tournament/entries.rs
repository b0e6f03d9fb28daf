//! Entering a tournament (or coming back to it) and calling one off.

use dudo_proto::v1 as pb;
use dudo_store::tournaments::{EntrantRow, TournamentRow};

use super::director::Director;
use super::live::PERSON;
use super::wire::tournament_to_wire;
use super::{Entering, moving, no_such_tournament, now_millis, state, store_error, update};
use crate::refusal::{Refusal, refused};

impl<T: crate::server_tables::ServerTables> Director<T> {
    /// Why `tournament` is not one the director holds: it has ended, it does not exist, or
    /// (before this node has read them) the tournaments are moving here.
    async fn not_live(&self, tournament: &str) -> Refusal {
        let stored = match self.tables.records() {
            Ok(store) => store.tournament(tournament).await,
            Err(why) => return why,
        };
        match stored {
            Err(e) => store_error(e),
            Ok(Some(row)) => refused(
                "tournament_over",
                Refusal::failed_precondition(format!("tournament {} has ended ({})", row.id, row.state)),
            ),
            Ok(None) if !self.loaded => moving(),
            Ok(None) => no_such_tournament(tournament),
        }
    }

    pub(super) async fn enter(&mut self, tournament: &str, entering: Entering) -> Result<(), Refusal> {
        let store = self.tables.records()?.clone();
        if !self.live.contains_key(tournament) {
            return Err(self.not_live(tournament).await);
        }
        let Some(live) = self.live.get_mut(tournament) else { return Err(no_such_tournament(tournament)) };
        let key = crate::accounts::name_key(&entering.name);
        let number = match live.entrants.iter().find(|e| e.account == entering.account.id) {
            Some(e) => e.number,
            // Two entrants of one name would read as one in the standings and the export.
            None if live
                .entrants
                .iter()
                .any(|e| e.account.is_empty() && crate::accounts::name_key(&e.name) == key) =>
            {
                return Err(refused(
                    "name_taken",
                    Refusal::failed_precondition(format!(
                        "tournament {} has a house bot named {}: an account of that name cannot enter it",
                        live.row.id, entering.name
                    )),
                ));
            }
            None if live.row.state != state::ENTRY => {
                return Err(refused(
                    "entry_closed",
                    Refusal::failed_precondition(format!(
                        "tournament {} has started; its entry closed",
                        live.row.id
                    )),
                ));
            }
            None if live.entrants.len() >= live.spec.max_entrants as usize => {
                return Err(refused(
                    "tournament_full",
                    Refusal::resource_exhausted(format!(
                        "tournament {} has its {} entrants",
                        live.row.id, live.spec.max_entrants
                    )),
                ));
            }
            None => {
                let row = EntrantRow {
                    number: live.entrants.len() as u32,
                    account: entering.account.id.clone(),
                    name: entering.name.clone(),
                    kind: match entering.account.kind {
                        pb::AccountKind::Bot => "bot".into(),
                        _ => PERSON.into(),
                    },
                    bot: String::new(),
                    entered_at: now_millis(),
                    benched: String::new(),
                };
                store.add_entrant(tournament, &row).await.map_err(store_error)?;
                let number = row.number;
                live.entrants.push(row);
                number
            }
        };
        let told = pb::TournamentEntered {
            tournament: Some(tournament_to_wire(
                &live.row,
                &live.spec,
                &live.entrants,
                live.finished.iter().filter(|f| f.is_some()).count() as u64,
            )),
            entrant: number,
        };
        let _ = entering.tx.try_send(update(pb::tournament_update::Update::Entered(told)));
        // Back after its stream dropped: the games it is seated at are said again.
        for (&game, in_play) in &live.in_play {
            let Some(made) = &in_play.made else { continue };
            for (_, seated) in live.seats_at(game, made).filter(|(e, _)| *e as u32 == number) {
                let _ = entering.tx.try_send(update(pb::tournament_update::Update::Seated(seated)));
            }
        }
        // One stream an entrant: the newest (a bot that restarted) replaces the one before.
        if let Some(old) = live.streams.insert(number, entering.tx) {
            let _ = old.try_send(Err(refused(
                "entered_again",
                Refusal::aborted("this account entered the tournament again on another stream"),
            )));
        }
        Ok(())
    }

    pub(super) async fn cancel(
        &mut self,
        tournament: &str,
        by: Option<String>,
    ) -> Result<TournamentRow, Refusal> {
        let Some(live) = self.live.get(tournament) else {
            return Err(self.not_live(tournament).await);
        };
        if let Some(by) = &by
            && *by != live.row.organiser
        {
            return Err(refused(
                "not_organiser",
                Refusal::permission_denied("only the tournament's organiser (or the admin) may cancel it"),
            ));
        }
        self.end(tournament, state::CANCELLED, "called off by its organiser").await.map_err(store_error)
    }
}
