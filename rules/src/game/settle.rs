//! Applying actions: bids, pushes and passes, and how a round is settled (reveal, penalty,
//! eliminations, results table, the next round or the end of the game).

use super::*;

impl CommonHand {
    /// [`Game::apply`] writing events into any sink.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut impl EventSink,
    ) -> Result<(), RuleError> {
        self.check(seat, action)?;
        self.moves += 1;
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
                self.turn = self.next_to_act(seat);
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
            Action::Watch => {
                self.players[seat].watching = true;
                emit(events, || EventKind::Watched { seat });
                let guessing = (0..self.players.len())
                    .filter(|&s| self.players[s].active() && !self.players[s].watching)
                    .count();
                if guessing <= 1 {
                    self.settle_points(None, events);
                } else {
                    self.turn = self.next_to_act(seat);
                }
            }
            // Refused by `check` above: they belong to the individual-hand games.
            Action::Accept | Action::Roll { .. } | Action::Claim(_) | Action::DogsLife { .. } => {}
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
        self.players[seat].last_guess = Some(bid);
        emit(events, || EventKind::BidMade { seat, bid });
        self.turn = self.next_to_act(seat);
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

    /// How the showdown counts dice for `face` this round: the one rule behind [`Self::count`]
    /// and a reveal's marks.
    pub(super) fn counting(&self, face: u8) -> Counting {
        Counting {
            face,
            wild: self.wild.filter(|&w| w != face),
            // A stair counts as that many ones: matching ones, or anything when ones are wild.
            stairs: self.rules.stairs == Stairs::On && (face == 1 || self.wild == Some(1)),
        }
    }

    /// How many dice on the table match `face`, wilds included when they count.
    pub(super) fn count(&self, face: u8) -> u16 {
        let counting = self.counting(face);
        self.players.iter().filter(|p| p.active()).map(|p| counting.cup(&p.cup, &p.pushed)).sum()
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
        // Which dice counted, by the same rule as the count that settles the round.
        let counting = showdown.bid().map(|bid| self.counting(bid.face));
        emit(events, || EventKind::DiceRevealed {
            dice: shown.clone(),
            counted: counting.map(|c| Counted {
                face: c.face,
                marks: shown.iter().map(|dice| c.marks(dice)).collect(),
                total: self.count(c.face),
            }),
        });
        emit(events, || EventKind::RoundSettled { showdown, winner, loser });
        self.last_result = Some(result);
    }

    pub(super) fn settle_dudo(&mut self, challenger: Seat, target: Seat, events: &mut impl EventSink) {
        if matches!(self.rules.game_end, GameEnd::Points(_)) {
            self.settle_points(Some(challenger), events);
            return;
        }
        let claim = self.claims.iter().rev().find(|c| c.seat == target).copied();
        let (showdown, claim_true, miss) = match claim.map(|c| c.kind) {
            Some(ClaimKind::Pass) => {
                let t = self.pass_is_true(target);
                (Showdown::DudoOnPass { pass_was_true: t }, t, 1)
            }
            Some(ClaimKind::Bid(bid) | ClaimKind::PushBid(bid)) => {
                let actual = self.count(bid.face);
                (Showdown::DudoOnBid { bid, actual }, actual >= bid.quantity, actual.abs_diff(bid.quantity))
            }
            None => return,
        };
        let (winner, loser) = if claim_true { (target, challenger) } else { (challenger, target) };
        // Out of sequence: anyone but the player due to answer (002).
        let failed_out_of_turn = loser == challenger && challenger != self.turn;
        let times =
            if failed_out_of_turn && self.rules.challenges.failed_out_of_turn == OutOfTurnPenalty::Double {
                2
            } else {
                1
            };
        self.record_result(showdown, winner, loser, events);
        let results = self.results_rows(events);
        let n = u16::from(self.rules.dice_lost_on_dudo);
        match self.rules.dudo_penalty {
            DudoPenalty::LoseDice => self.lose_dice(loser, n * times, events),
            DudoPenalty::LoseDifference => self.lose_dice(loser, miss.max(1) * times, events),
            DudoPenalty::GiveToWinner => {
                let given = (n * times).min(self.players[loser].dice_count);
                self.lose_dice(loser, given, events);
                self.players[winner].dice_count += given;
                emit(events, || EventKind::DiceGiven { from: loser, to: winner, count: given });
            }
            DudoPenalty::Snyd => {
                let n_seats = self.players.len();
                for seat in (1..n_seats).map(|i| (loser + i) % n_seats) {
                    if self.players[seat].active() {
                        self.lose_dice(seat, n, events);
                    }
                }
            }
            DudoPenalty::NoDice => {}
        }
        if self.rules.drinks.tally == DrinksTally::On {
            let d = self.rules.drinks;
            let mut drinks = u32::from(d.per_lost_round);
            if d.by_difference == DrinksByDifference::On {
                drinks += u32::from(miss);
            }
            if failed_out_of_turn {
                drinks *= u32::from(d.failed_out_of_turn_multiplier.max(1));
            }
            self.drink(loser, drinks, events);
        }
        self.pay_round(winner, loser, events);
        let next = match self.rules.next_starter {
            NextStarter::Loser => loser,
            NextStarter::Winner => winner,
            NextStarter::NextInOrder => self.next_active(self.starter),
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
        let others: Vec<Seat> =
            (0..self.players.len()).filter(|&s| s != caller && self.players[s].active()).collect();
        if right {
            match e.reward {
                ExactReward::WinDice => {
                    let cap = match e.cap {
                        ExactCap::MaxDice => u16::from(self.rules.dice.max),
                        ExactCap::StartingDice => self.initial_dice[caller],
                    };
                    let p = &mut self.players[caller];
                    let gain = u16::from(e.dice_won).min(cap.saturating_sub(p.dice_count));
                    p.dice_count += gain;
                    let now = p.dice_count;
                    emit(events, || EventKind::DiceWon { seat: caller, count: gain, now });
                }
                ExactReward::OthersLoseDice => {
                    for &seat in &others {
                        self.lose_dice(seat, u16::from(e.dice_won), events);
                    }
                }
            }
        } else {
            self.lose_dice(caller, u16::from(e.dice_lost), events);
        }
        if self.rules.drinks.tally == DrinksTally::On {
            let d = self.rules.drinks;
            let per = u32::from(d.per_lost_round);
            match (d.spot_on, right) {
                (SpotOnDrinks::OthersDrinkFailedDoubles, true) => {
                    for &seat in &others {
                        self.drink(seat, per, events);
                    }
                }
                (SpotOnDrinks::OthersDrinkFailedDoubles, false) => self.drink(caller, per * 2, events),
                (SpotOnDrinks::Plain, _) => self.drink(loser, per, events),
            }
        }
        self.pay_round(winner, loser, events);
        // The caller's dice changed either way (000 example, round seven).
        let next = match self.rules.next_starter {
            NextStarter::Loser => caller,
            NextStarter::Winner => winner,
            NextStarter::NextInOrder => self.next_active(self.starter),
        };
        self.end_round(winner, loser, next, results, events);
    }

    /// Seed 001's end of a round: a Doubt, or everyone but one watching. Scores every guess
    /// the rules count, discarding gains that would pass the target.
    pub(super) fn settle_points(&mut self, doubter: Option<Seat>, events: &mut impl EventSink) {
        let GameEnd::Points(target) = self.rules.game_end else { return };
        let Some((guesser, bid)) = self.current else { return };
        let last_standing = match doubter {
            Some(_) => None,
            None => (0..self.players.len()).find(|&s| self.players[s].active() && !self.players[s].watching),
        };
        let standing_guess = last_standing.and_then(|s| self.players[s].last_guess).unwrap_or(bid);
        let actual_of = |g: Bid| self.count(g.face);
        let showdown = match doubter {
            Some(_) => Showdown::DudoOnBid { bid, actual: actual_of(bid) },
            None => Showdown::GuessesChecked { bid: standing_guess, actual: actual_of(standing_guess) },
        };
        let full = |g: Bid| i64::from(g.quantity) * i64::from(g.face);
        let reduced = |g: Bid| i64::from(g.quantity.max(u16::from(g.face)));
        let mut deltas = vec![0i64; self.players.len()];
        let (winner, loser);
        match doubter {
            Some(d) => {
                let right = actual_of(bid) >= bid.quantity;
                deltas[guesser] += if right { full(bid) } else { -full(bid) };
                deltas[d] += if right { -reduced(bid) } else { reduced(bid) };
                (winner, loser) = if right { (guesser, d) } else { (d, guesser) };
            }
            None => {
                let seat = last_standing.unwrap_or(guesser);
                let right = actual_of(standing_guess) >= standing_guess.quantity;
                deltas[seat] += if right { full(standing_guess) } else { -full(standing_guess) };
                (winner, loser) = (seat, seat);
            }
        }
        for (seat, p) in self.players.iter().enumerate() {
            let Some(g) = p.last_guess else { continue };
            let right = actual_of(g) >= g.quantity;
            if p.watching {
                deltas[seat] += match (right, self.rules.points.wrong_watcher) {
                    (true, _) => reduced(g),
                    (false, WrongWatcher::Nothing) => 0,
                    (false, WrongWatcher::LosesReduced) => -reduced(g),
                    (false, WrongWatcher::LosesFull) => -full(g),
                };
            } else if self.rules.points.other_guesses == OtherGuesses::Scored
                && Some(seat) != doubter
                && seat != guesser
                && Some(seat) != last_standing
            {
                deltas[seat] += if right { full(g) } else { -full(g) };
            }
        }
        self.record_result(showdown, winner, loser, events);
        let results = self.results_rows(events);
        let mut reached = false;
        for (seat, delta) in deltas.into_iter().enumerate() {
            if delta == 0 {
                continue;
            }
            let p = &mut self.players[seat];
            let discarded = delta > 0 && p.score + delta > i64::from(target);
            if !discarded {
                p.score += delta;
            }
            let total = p.score;
            reached |= total == i64::from(target);
            emit(events, || EventKind::Scored { seat, points: delta, total, discarded });
        }
        if let Some(rows) = results {
            emit(events, || EventKind::ResultsTable { rows });
        }
        if reached {
            self.finish_ranked(events);
            return;
        }
        // "The next round begins with the player who is next in the turn order."
        let next = self.next_active(self.starter);
        self.start_round(next, events);
    }

    /// Gives `seat` drinks and says so.
    pub(super) fn drink(&mut self, seat: Seat, drinks: u32, events: &mut impl EventSink) {
        drink(&mut self.players[seat].drinks, seat, drinks, events);
    }

    fn pay(&mut self, from: Seat, to: Seat, amount: u32, events: &mut impl EventSink) {
        if from == to || amount == 0 {
            return;
        }
        self.players[from].money -= i64::from(amount);
        self.players[to].money += i64::from(amount);
        emit(events, || EventKind::Paid { from, to, amount });
    }

    /// Round-by-round wagers: the loser pays the winner (002).
    fn pay_round(&mut self, winner: Seat, loser: Seat, events: &mut impl EventSink) {
        if self.rules.wager.mode == WagerMode::LoserPaysWinnerEachRound {
            self.pay(loser, winner, self.rules.wager.stake, events);
        }
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
        if self.rules.drinks.tally == DrinksTally::On {
            self.drink(seat, u32::from(self.rules.drinks.per_die_lost) * u32::from(lost), events);
        }
        if left == 0 {
            // Snyd: running out of dice is finishing, best first; elsewhere it is losing.
            let place = if self.rules.dudo_penalty == DudoPenalty::Snyd {
                self.out_order.len() + 1
            } else {
                self.active_count()
            };
            let p = &mut self.players[seat];
            p.place = Some(place);
            // The cup was revealed; nothing stays under it.
            p.cup.clear();
            p.sight.clear();
            p.pushed.clear();
            self.out_order.push(seat);
            emit(events, || EventKind::Eliminated { seat, place });
            if self.rules.drinks.tally == DrinksTally::On {
                self.drink(seat, u32::from(self.rules.drinks.on_elimination), events);
            }
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
        match self.rules.game_end {
            GameEnd::SingleRound => {
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
            GameEnd::Rounds(n) if self.round >= n => {
                self.finish_ranked(events);
                return;
            }
            _ => {}
        }
        if self.active_count() <= 1 {
            self.finish_last_standing(events);
            return;
        }
        self.start_round(next_starter, events);
    }

    pub(super) fn finish_last_standing(&mut self, events: &mut impl EventSink) {
        let still_in = (0..self.players.len()).filter(|&s| self.players[s].active());
        let standings: Vec<Seat> = if self.rules.dudo_penalty == DudoPenalty::Snyd {
            // "The last person to have dice is the loser."
            self.out_order.iter().copied().chain(still_in).collect()
        } else {
            still_in.chain(self.out_order.iter().rev().copied()).collect()
        };
        self.finish(standings, events);
    }

    /// Ends a game that stops on points or after a number of rounds (or is stopped): players
    /// still in rank by points, then money, then fewest drinks, then dice, then seat; those
    /// out follow. In snyd running out of dice is finishing: those out keep their places
    /// ahead, and fewer dice rank higher.
    pub(super) fn finish_ranked(&mut self, events: &mut impl EventSink) {
        if self.rules.wager.mode == WagerMode::WinnerTakesAll {
            self.settle_pot(events);
        }
        let snyd = self.rules.dudo_penalty == DudoPenalty::Snyd;
        let mut still_in: Vec<Seat> = (0..self.players.len()).filter(|&s| self.players[s].active()).collect();
        still_in.sort_by_key(|&s| {
            let p = &self.players[s];
            let dice = if snyd { i32::from(p.dice_count) } else { -i32::from(p.dice_count) };
            (std::cmp::Reverse(p.score), std::cmp::Reverse(p.money), p.drinks, dice, s)
        });
        let standings = if snyd {
            self.out_order.iter().copied().chain(still_in).collect()
        } else {
            still_in.extend(self.out_order.iter().rev());
            still_in
        };
        self.finish(standings, events);
    }

    /// Winner takes all: everyone else pays the stake to the first-placed player.
    fn settle_pot(&mut self, events: &mut impl EventSink) {
        let Some(&winner) = self.final_standings.first() else { return };
        let stake = self.rules.wager.stake;
        for seat in 0..self.players.len() {
            if seat != winner && !self.players[seat].left {
                self.pay(seat, winner, stake, events);
            }
        }
    }

    pub(super) fn finish(&mut self, standings: Vec<Seat>, events: &mut impl EventSink) {
        for (i, &s) in standings.iter().enumerate() {
            if self.players[s].place.is_none() {
                self.players[s].place = Some(i + 1);
            }
        }
        if self.rules.wager.mode == WagerMode::WinnerTakesAll && self.final_standings.is_empty() {
            // The ranked path settled the pot already, before it filled the standings.
            let winner = standings.first().copied();
            if let Some(w) = winner {
                let stake = self.rules.wager.stake;
                for seat in 0..self.players.len() {
                    if seat != w && !self.players[seat].left {
                        self.pay(seat, w, stake, events);
                    }
                }
            }
        }
        self.phase = Phase::Over;
        self.final_standings = standings;
        let (standings, players) = (&self.final_standings, &self.players);
        emit(events, || EventKind::GameOver {
            standings: standings.clone(),
            points: players.iter().map(|p| p.score).collect(),
            money: players.iter().map(|p| p.money).collect(),
            drinks: players.iter().map(|p| p.drinks).collect(),
        });
    }
}

/// Which dice count for a face at a showdown: the bid's face, the wild face when it counts,
/// and every die of a stair when stairs count.
#[derive(Clone, Copy, Debug)]
pub(super) struct Counting {
    face: u8,
    /// The wild face, when it counts for `face` (not the face itself, not with wilds off).
    wild: Option<u8>,
    /// Whether a stair counts as a whole cup of `face`.
    stairs: bool,
}

impl Counting {
    /// Whether one die counts, on its own.
    fn die(self, d: u8) -> bool {
        d == self.face || Some(d) == self.wild
    }

    /// Whether a player's dice count as a whole (a stair).
    fn whole(self, cup: &[u8], pushed: &[u8]) -> bool {
        self.stairs && is_stair(cup, pushed)
    }

    /// How many of a player's dice (under the cup and pushed) count; no allocation.
    fn cup(self, cup: &[u8], pushed: &[u8]) -> u16 {
        let n = if self.whole(cup, pushed) {
            cup.len() + pushed.len()
        } else {
            cup.iter().chain(pushed).filter(|&&d| self.die(d)).count()
        };
        u16::try_from(n).unwrap_or(u16::MAX)
    }

    /// One mark per die of a player's dice, true where it counts.
    fn marks(self, dice: &[u8]) -> Vec<bool> {
        let whole = self.whole(dice, &[]);
        dice.iter().map(|&d| whole || self.die(d)).collect()
    }
}

/// Whether a player's dice are exactly 1, 2, ... n: snyd's stair (002), two dice or more.
fn is_stair(cup: &[u8], pushed: &[u8]) -> bool {
    let n = cup.len() + pushed.len();
    if n < 2 {
        return false;
    }
    let mut seen = [false; 41];
    for &d in cup.iter().chain(pushed) {
        let i = usize::from(d);
        if i == 0 || i > n || seen[i] {
            return false;
        }
        seen[i] = true;
    }
    true
}
