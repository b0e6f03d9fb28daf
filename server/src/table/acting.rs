//! A seat's move or call as the table's task takes it: the table's pace first (see `rate`),
//! then the position it answers, then the core; refusals are counted for a bot check's report.

use std::time::Duration;

use dudo_rules::{Action, Seat};
use tokio::time::Instant;

use super::{Table, TableError};

impl Table {
    pub(super) fn act(
        &mut self,
        token: &str,
        action: Option<Action>,
        answers: Option<Option<u64>>,
    ) -> Result<(), TableError> {
        let started = Instant::now();
        let seat = self.core.seats().seat_of(token)?;
        let refused = self.act_as(seat, action, answers, started);
        if let Err(e) = &refused {
            *self.refusals.entry((seat, e.code())).or_default() += 1;
        }
        refused
    }

    fn act_as(
        &mut self,
        seat: Seat,
        action: Option<Action>,
        answers: Option<Option<u64>>,
        started: Instant,
    ) -> Result<(), TableError> {
        let _span = tracing::debug_span!("act", seat).entered();
        let now = self.now().mono;
        let awaited = self.core.awaits(seat);
        if let Err(e) = self.rate.check(seat, awaited, now) {
            // Prompted again once it may move: a seat that answers prompts never stalls.
            if let (true, TableError::RateLimited { retry_after_millis, .. }) = (awaited, &e) {
                let at = now + Duration::from_millis(*retry_after_millis);
                self.reprompt.retain(|&(s, _)| s != seat);
                self.reprompt.push((seat, at));
            }
            return Err(e);
        }
        if self.core.game().is_none() {
            return Err(TableError::NotStarted);
        }
        let now = self.now();
        // An answer to a position that is gone is refused like a bad move: it spends the
        // seat's own calls, so stale answers cannot be sent faster than any refusal.
        let played = match action {
            _ if answers.is_some_and(|seq| seq != self.core.last_seq()) => {
                let late = answers.flatten().is_some_and(|seq| self.core.answers_closed_window(seat, seq));
                Err(if late { TableError::CallWindowClosed } else { TableError::StalePrompt })
            }
            Some(action) => self.core.play(seat, action, now),
            None => self.core.pass_call(seat, now),
        };
        if let Ok(true) = played {
            self.core.settle(now);
        }
        if let Err(e) = played {
            metrics::counter!("dudo_rejections_total", "reason" => e.code()).increment(1);
            self.rate.refused(seat, now.mono);
            return Err(e);
        }
        metrics::counter!("dudo_actions_total").increment(1);
        // From the command reaching the table to its events in every stream's outbox.
        metrics::histogram!("dudo_action_seconds").record(started.elapsed().as_secs_f64());
        Ok(())
    }
}
