//! Applying actions: bids, pushes and passes, and how a round is settled (reveal, penalty,
//! eliminations, results table, the next round or the end of the game).

use super::*;

impl Game {
    /// Applies `action` by `seat`: the events it caused, or why it is refused (state unchanged).
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }

    /// [`Game::apply`] writing events into any sink.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut impl EventSink,
    ) -> Result<(), RuleError> {
        self.check(seat, action)?;
        match action {
            Action::Bid(bid) => {
                self.make_bid(seat, *bid, ClaimKind::Bid(*bid), events);
            }
            Action::Push { dice, bid } => {
                self.push_and_reroll(seat, dice, events);
                self.make_bid(seat, *bid, ClaimKind::PushBid(*bid), events);
            }
            Action::Pass => {
                let p = &mut self.players[seat];
                p.passed_this_roll = true;
                p.passed_this_round = true;
                self.claims.push(Claim { seat, kind: ClaimKind::Pass });
                emit(events, || EventKind::Passed { seat });
                self.turn = self.next_active(seat);
            }
            Action::Dudo { target } => {
                let target = match target {
                    Some(t) => *t,
                    None => self.challengeable_iter(seat).next().unwrap_or(seat),
                };
                emit(events, || EventKind::DudoCalled { seat, target });
                self.settle_dudo(seat, target, events);
            }
            Action::Calza => {
                emit(events, || EventKind::CalzaCalled { seat });
                self.players[seat].exact_used = true;
                self.settle_calza(seat, events);
            }
        }
        Ok(())
    }

    pub(super) fn make_bid(&mut self, seat: Seat, bid: Bid, kind: ClaimKind, events: &mut impl EventSink) {
        if self.claims.is_empty()
            && self.rules.wilds == Wilds::OnesUnlessOpenedOnOnes
            && self.wild == Some(1)
            && bid.face == 1
        {
            self.wild = None;
            emit(events, || EventKind::WildsOff);
        }
        if self.wild != Some(bid.face) {
            self.last_natural_quantity = bid.quantity;
        }
        self.claims.push(Claim { seat, kind });
        self.current = Some((seat, bid));
        emit(events, || EventKind::BidMade { seat, bid });
        self.turn = self.next_active(seat);
    }

    pub(super) fn push_and_reroll(&mut self, seat: Seat, dice: &[u8], events: &mut impl EventSink) {
        let mut shown = Vec::with_capacity(dice.len());
        {
            let p = &mut self.players[seat];
            for &face in dice {
                if let Some(i) = p.sight.iter().position(|&s| s == Some(face)) {
                    p.sight.remove(i);
                    shown.push(p.cup.remove(i));
                }
            }
            p.pushed.extend_from_slice(&shown);
            p.pushed_this_round = true;
            p.passed_this_roll = false;
        }
        self.pushes_this_round += 1;
        emit(events, || EventKind::DicePushed { seat, pushed: shown });
        let n = self.players[seat].cup.len();
        self.roll_cup(seat, n, events);
    }

    /// How many dice on the table match `face`, wilds included when they count.
    pub(super) fn count(&self, face: u8) -> u16 {
        let wild = self.wild.filter(|&w| w != face);
        let mut n = 0u16;
        for p in self.players.iter().filter(|p| p.active()) {
            for &d in p.cup.iter().chain(p.pushed.iter()) {
                if d == face || Some(d) == wild {
                    n += 1;
                }
            }
        }
        n
    }

    pub(super) fn pass_is_true(&self, seat: Seat) -> bool {
        let p = &self.players[seat];
        let mut seen = [false; 10];
        let mut dice = p.cup.iter().chain(p.pushed.iter());
        match self.rules.pass.claim {
            PassClaim::AllSameFace => {
                let first = dice.next().copied();
                dice.all(|&d| Some(d) == first)
            }
            PassClaim::AllDifferent => dice.all(|&d| !std::mem::replace(&mut seen[usize::from(d)], true)),
            PassClaim::Off => false,
        }
    }

    /// Every player's true dice, each sorted: the order must not echo what the owner saw.
    pub(super) fn reveal(&self) -> Vec<Vec<u8>> {
        self.players
            .iter()
            .map(|p| {
                let mut dice: Vec<u8> = if p.active() {
                    p.cup.iter().chain(p.pushed.iter()).copied().collect()
                } else {
                    Vec::new()
                };
                dice.sort_unstable();
                dice
            })
            .collect()
    }

    /// Reveals every cup and records the round's result, reusing the last result's memory
    /// when no view still holds it (playouts settle millions of rounds).
    pub(super) fn record_result(
        &mut self,
        showdown: Showdown,
        winner: Seat,
        loser: Seat,
        events: &mut impl EventSink,
    ) {
        let mut result = match self.last_result.take().or_else(|| self.spare_result.take()) {
            Some(arc) if Arc::strong_count(&arc) == 1 => arc,
            _ => Arc::new(RoundResult { round: 0, dice: Vec::new(), showdown, winner, loser }),
        };
        let Some(r) = Arc::get_mut(&mut result) else { return };
        r.round = self.round;
        r.showdown = showdown;
        r.winner = winner;
        r.loser = loser;
        r.dice.resize_with(self.players.len(), Vec::new);
        for (slot, p) in r.dice.iter_mut().zip(&self.players) {
            slot.clear();
            if p.active() {
                slot.extend_from_slice(&p.cup);
                slot.extend_from_slice(&p.pushed);
                // Sorted: the order must not echo what the owner saw.
                slot.sort_unstable();
            }
        }
        let shown = &r.dice;
        emit(events, || EventKind::DiceRevealed { dice: shown.clone() });
        emit(events, || EventKind::RoundSettled { showdown, winner, loser });
        self.last_result = Some(result);
    }

    pub(super) fn settle_dudo(&mut self, challenger: Seat, target: Seat, events: &mut impl EventSink) {
        let claim = self.claims.iter().rev().find(|c| c.seat == target).copied();
        let (showdown, claim_true) = match claim.map(|c| c.kind) {
            Some(ClaimKind::Pass) => {
                let t = self.pass_is_true(target);
                (Showdown::DudoOnPass { pass_was_true: t }, t)
            }
            Some(ClaimKind::Bid(bid) | ClaimKind::PushBid(bid)) => {
                let actual = self.count(bid.face);
                (Showdown::DudoOnBid { bid, actual }, actual >= bid.quantity)
            }
            None => return,
        };
        let (winner, loser) = if claim_true { (target, challenger) } else { (challenger, target) };
        self.record_result(showdown, winner, loser, events);
        let results = self.results_rows(events);
        let lost = match self.rules.dudo_penalty {
            DudoPenalty::LoseDice => u16::from(self.rules.dice_lost_on_dudo),
        };
        self.lose_dice(loser, lost, events);
        let next = match self.rules.next_starter {
            NextStarter::Loser => loser,
            NextStarter::Winner => winner,
        };
        self.end_round(winner, loser, next, results, events);
    }

    pub(super) fn settle_calza(&mut self, caller: Seat, events: &mut impl EventSink) {
        let Some((bidder, bid)) = self.current else {
            return;
        };
        let actual = self.count(bid.face);
        let right = actual == bid.quantity;
        let showdown = Showdown::Calza { bid, actual };
        let (winner, loser) = if right { (caller, bidder) } else { (bidder, caller) };
        self.record_result(showdown, winner, loser, events);
        let results = self.results_rows(events);
        let e = self.rules.exact_call;
        if right {
            let p = &mut self.players[caller];
            let gain = u16::from(e.dice_won).min(u16::from(self.rules.dice.max).saturating_sub(p.dice_count));
            p.dice_count += gain;
            emit(events, || EventKind::DiceWon { seat: caller, count: gain, now: p.dice_count });
        } else {
            self.lose_dice(caller, u16::from(e.dice_lost), events);
        }
        // The caller's dice changed either way (000 example, round seven).
        let next = match self.rules.next_starter {
            NextStarter::Loser => caller,
            NextStarter::Winner => winner,
        };
        self.end_round(winner, loser, next, results, events);
    }

    pub(super) fn lose_dice(&mut self, seat: Seat, count: u16, events: &mut impl EventSink) {
        let p = &mut self.players[seat];
        let lost = count.min(p.dice_count);
        p.dice_count -= lost;
        if p.dice_count == 1 && lost > 0 {
            p.just_reached_one_die = true;
        }
        let left = p.dice_count;
        emit(events, || EventKind::DiceLost { seat, count: lost, left });
        if left == 0 {
            let place = self.active_count();
            let p = &mut self.players[seat];
            p.place = Some(place);
            // The cup was revealed; nothing stays under it.
            p.cup.clear();
            p.sight.clear();
            p.pushed.clear();
            self.out_order.push(seat);
            emit(events, || EventKind::Eliminated { seat, place });
        }
    }

    /// Seed 000's results table, counted while every player of the round still holds dice.
    pub(super) fn results_rows(&self, events: &impl EventSink) -> Option<Vec<ResultRow>> {
        (self.rules.results_table == ResultsTable::On && events.wants()).then(|| {
            self.claims
                .iter()
                .filter_map(|c| {
                    c.kind.bid().map(|bid| {
                        let actual = self.count(bid.face);
                        ResultRow { seat: c.seat, bid, actual, was_true: actual >= bid.quantity }
                    })
                })
                .collect()
        })
    }

    pub(super) fn end_round(
        &mut self,
        winner: Seat,
        loser: Seat,
        next_starter: Seat,
        results: Option<Vec<ResultRow>>,
        events: &mut impl EventSink,
    ) {
        if let Some(rows) = results {
            emit(events, || EventKind::ResultsTable { rows });
        }
        if self.rules.game_end == GameEnd::SingleRound {
            let mut standings = std::mem::take(&mut self.final_standings);
            standings.clear();
            standings.push(winner);
            standings.extend((0..self.players.len()).filter(|&s| s != winner && s != loser));
            if loser != winner {
                standings.push(loser);
            }
            self.finish(standings, events);
            return;
        }
        if self.active_count() <= 1 {
            self.finish_last_standing(events);
            return;
        }
        self.start_round(next_starter, events);
    }

    pub(super) fn finish_last_standing(&mut self, events: &mut impl EventSink) {
        let mut standings: Vec<Seat> =
            (0..self.players.len()).filter(|&s| self.players[s].active()).collect();
        standings.extend(self.out_order.iter().rev());
        self.finish(standings, events);
    }

    pub(super) fn finish(&mut self, standings: Vec<Seat>, events: &mut impl EventSink) {
        for (i, &s) in standings.iter().enumerate() {
            if self.players[s].place.is_none() {
                self.players[s].place = Some(i + 1);
            }
        }
        self.phase = Phase::Over;
        self.final_standings = standings;
        let standings = &self.final_standings;
        emit(events, || EventKind::GameOver { standings: standings.clone() });
    }
}
