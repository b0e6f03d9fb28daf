//! What a seat may do: the checks every action passes before anything changes, and the
//! legal actions derived from the same checks.

use rand::Rng;

use super::*;

impl CommonHand {
    pub(super) fn bidding_for(&self, seat: Seat) -> Bidding {
        let face_rule = if self.palifico.is_empty() {
            FaceRule::Free
        } else {
            match self.rules.palifico.face_change {
                PalificoFaceChange::Locked => FaceRule::Locked,
                PalificoFaceChange::ExPalificoMayRaise => {
                    if self.players[seat].had_palifico && !self.palifico.contains(seat) {
                        FaceRule::RaiseWithoutLoweringQuantity
                    } else {
                        FaceRule::Locked
                    }
                }
                PalificoFaceChange::OneDiePlayersMayChange => {
                    if self.players[seat].dice_count == 1 {
                        FaceRule::Free
                    } else {
                        FaceRule::Locked
                    }
                }
            }
        };
        Bidding {
            faces: self.rules.dice.faces,
            total_dice: self.total_dice(),
            wild: self.wild,
            wild_bids: self.rules.wild_bids,
            // The West Coast variant exists for opening on ones; forbidding it would void it.
            opening_on_wilds: if self.rules.wilds == Wilds::OnesUnlessOpenedOnOnes {
                OpeningOnWilds::Allowed
            } else {
                self.rules.opening_on_wilds
            },
            system: self.rules.bidding,
            face_rule,
            last_natural_quantity: self.last_natural_quantity,
        }
    }

    pub(super) fn check_seat(&self, seat: Seat) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        match self.players.get(seat) {
            None => Err(RuleError::NoSuchSeat { seat }),
            Some(p) if !p.active() => Err(RuleError::OutOfTheGame { seat }),
            Some(_) => Ok(()),
        }
    }

    pub(super) fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if seat == self.turn { Ok(()) } else { Err(RuleError::NotYourTurn { seat, turn: self.turn }) }
    }

    pub(super) fn check_bid(&self, seat: Seat, bid: Bid) -> Result<(), RuleError> {
        let bidding = self.bidding_for(seat);
        let current = self.current.map(|c| c.1);
        bidding.check_raise(current, bid).map_err(|problem| match problem {
            BidProblem::FaceOutOfRange => RuleError::FaceOutOfRange { face: bid.face, faces: bidding.faces },
            BidProblem::QuantityOutOfRange => {
                RuleError::QuantityOutOfRange { quantity: bid.quantity, total: bidding.total_dice }
            }
            BidProblem::OpeningOnWilds => RuleError::OpeningOnWilds { face: bid.face },
            BidProblem::WildNeverBid => RuleError::WildNeverBid { face: bid.face },
            BidProblem::FaceLocked => RuleError::FaceLocked { face: current.map_or(bid.face, |b| b.face) },
            BidProblem::NotHigher(rule) => match current {
                Some(current) => RuleError::BidNotHigher { bid, current, rule },
                None => RuleError::NoBidYet,
            },
        })
    }

    /// The seats whose claims may be challenged now, the last claim first.
    pub(super) fn challengeable(&self, challenger: Seat) -> Vec<Seat> {
        self.challengeable_iter(challenger).collect()
    }

    pub(super) fn challengeable_into(&self, challenger: Seat, out: &mut Vec<Seat>) {
        out.clear();
        out.extend(self.challengeable_iter(challenger));
    }

    /// The seats whose claims `challenger` may challenge, the last claim first: the last
    /// claim, and after a pass the one before it (004) or the whole run of passes (002).
    pub(super) fn challengeable_iter(&self, challenger: Seat) -> impl Iterator<Item = Seat> + '_ {
        let mut recent = self.claims.iter().rev();
        let last = recent.next();
        let window = match last.map(|c| c.kind) {
            Some(ClaimKind::Pass) => match self.rules.pass.challenge {
                PassChallenge::LastOrOneBeforeAPass => 1,
                PassChallenge::AnyConsecutivePass => {
                    recent.clone().take_while(|c| c.kind == ClaimKind::Pass).count()
                }
            },
            _ => 0,
        };
        let mut seen = SeatSet::default();
        last.into_iter().chain(recent.take(window)).map(|c| c.seat).filter(move |&s| {
            let fresh = s != challenger && !seen.contains(s);
            seen.insert(s);
            fresh
        })
    }

    pub(super) fn check_push(&self, seat: Seat, dice: &[u8], bid: Bid) -> Result<(), RuleError> {
        let rule = self.rules.push;
        let refuse = |why| Err(RuleError::PushNotAllowed { why });
        if rule.dice == PushDice::Off {
            return refuse("this table plays without push and re-roll");
        }
        if self.current.is_none() {
            return refuse("a push raises a bid; open the round with a plain bid");
        }
        let p = &self.players[seat];
        match rule.limit {
            PushLimit::Unlimited => {}
            PushLimit::OncePerPlayerPerRound if p.pushed_this_round => {
                return refuse("you have already pushed this round");
            }
            PushLimit::OncePerRound if self.pushes_this_round > 0 => {
                return refuse("someone has already pushed this round");
            }
            _ => {}
        }
        if dice.is_empty() {
            return refuse("a push shows at least one die");
        }
        if dice.len() >= p.cup.len() {
            return refuse("at least one die must stay under the cup to be re-rolled");
        }
        let mut seen = p.sight.clone();
        for &face in dice {
            match seen.iter().position(|&s| s == Some(face)) {
                Some(i) => {
                    seen.swap_remove(i);
                }
                None => {
                    return Err(RuleError::PushDieMissing {
                        face,
                        why: "you see no such die under your cup",
                    });
                }
            }
        }
        if rule.dice == PushDice::MatchingBidFace {
            if dice.iter().any(|&d| d != bid.face) {
                return refuse("the pushed dice must all show the face of the new bid");
            }
            if usize::from(bid.quantity) <= dice.len() {
                return refuse("the new bid must claim more than the dice shown");
            }
        }
        self.check_bid(seat, bid)
    }

    /// Whether some push is allowed now, derived from [`CommonHand::check_push`]: one die of a
    /// face the seat sees, with the least bid that goes with it (on that face, claiming more
    /// than the one die, where the bid must match; else the least bid of the first face that
    /// has one). Pushing more dice only narrows the bids, so one die is the widest choice.
    fn may_push(&self, seat: Seat, bids: &[BidRange]) -> bool {
        let rule = self.rules.push.dice;
        if rule == PushDice::Off || self.current.is_none() || bids.is_empty() {
            return false;
        }
        self.players[seat].sight.iter().flatten().any(|&face| {
            let bid = match rule {
                PushDice::MatchingBidFace => match bids.iter().find(|r| r.face == face) {
                    Some(r) if r.max_quantity >= 2 => Bid::new(r.min_quantity.max(2), face),
                    _ => return false,
                },
                _ => Bid::new(bids[0].min_quantity, bids[0].face),
            };
            self.check_push(seat, &[face], bid).is_ok()
        })
    }

    pub(super) fn check_pass(&self, seat: Seat) -> Result<(), RuleError> {
        let rule = self.rules.pass;
        let refuse = |why| Err(RuleError::PassNotAllowed { why });
        if rule.claim == PassClaim::Off {
            return refuse("this table plays without passing");
        }
        if self.current.is_none() {
            return refuse("the round must be opened with a bid");
        }
        let p = &self.players[seat];
        if p.dice_count < u16::from(rule.min_dice) {
            return refuse("you hold too few dice to pass");
        }
        match rule.limit {
            PassLimit::OncePerRoll if p.passed_this_roll => refuse("you have passed on these dice already"),
            PassLimit::OncePerRound if p.passed_this_round => refuse("you have passed this round already"),
            _ => Ok(()),
        }
    }

    pub(super) fn check_calza(&self, seat: Seat) -> Result<(), RuleError> {
        let e = self.rules.exact_call;
        let call = exact_call_name(&self.rules);
        let refuse = |why| Err(RuleError::ExactCallNotAllowed { call, why });
        self.check_seat(seat)?;
        if e.who == ExactCaller::Off {
            return refuse("this table plays without an exact call");
        }
        let Some((bidder, _)) = self.current else {
            return refuse("there is no bid to call exact");
        };
        if self.active_count() < usize::from(e.min_players) {
            return refuse("too few players are left in the game");
        }
        if !self.palifico.is_empty() && e.in_palifico == InPalifico::Forbidden {
            return refuse("it is not allowed in a Palifico round");
        }
        if e.limit == ExactLimit::OncePerGame && self.players[seat].exact_used {
            return refuse("each player gets one per game, and you have used yours");
        }
        match e.who {
            ExactCaller::NotBidderNorNext => {
                if seat == bidder {
                    return refuse("the player who made the bid may not call it");
                }
                if seat == self.turn {
                    return refuse("the player due to answer the bid may not call it");
                }
            }
            ExactCaller::OnTurn => {
                self.check_turn(seat)?;
                // After passes the turn can come back to the bidder; calling your own bid
                // exact is not a call on someone else's claim.
                if seat == bidder {
                    return refuse("the player who made the bid may not call it");
                }
            }
            ExactCaller::Off => {}
        }
        Ok(())
    }

    /// Checks `action` for `seat` without changing anything.
    pub fn check(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.check_seat(seat)?;
        match action {
            Action::Bid(bid) => {
                self.check_turn(seat)?;
                self.check_bid(seat, *bid)
            }
            Action::Push { dice, bid } => {
                self.check_turn(seat)?;
                self.check_push(seat, dice, *bid)
            }
            Action::Pass => {
                self.check_turn(seat)?;
                self.check_pass(seat)
            }
            Action::Dudo { target } => {
                if self.rules.challenges.who == Challenger::NextPlayer {
                    self.check_turn(seat)?;
                }
                let mut targets = self.challengeable_iter(seat).peekable();
                match (self.claims.last(), targets.peek()) {
                    (None, _) => return Err(RuleError::NoBidYet),
                    // Only your own claim is on the table.
                    (Some(last), None) => return Err(RuleError::NotChallengeable { target: last.seat }),
                    _ => {}
                }
                match target {
                    None => Ok(()),
                    Some(t) if targets.any(|s| s == *t) => Ok(()),
                    Some(t) => Err(RuleError::NotChallengeable { target: *t }),
                }
            }
            Action::Calza => self.check_calza(seat),
            Action::Watch => {
                self.check_turn(seat)?;
                self.check_watch(seat)
            }
            Action::Accept | Action::Roll { .. } | Action::Claim(_) | Action::DogsLife { .. } => {
                Err(RuleError::NotInThisGame { call: action.to_string() })
            }
        }
    }

    pub(super) fn check_watch(&self, seat: Seat) -> Result<(), RuleError> {
        let refuse = |why| Err(RuleError::WatchNotAllowed { why });
        if !matches!(self.rules.game_end, GameEnd::Points(_)) {
            return refuse("only the points game has Watch");
        }
        if self.players[seat].last_guess.is_none() {
            return refuse("you can only watch after making a guess this round");
        }
        Ok(())
    }

    /// Writes everything `seat` may do now into `out`, reusing its allocations.
    pub fn legal_into(&self, seat: Seat, out: &mut Legal) {
        out.bids.clear();
        out.dudo.clear();
        out.push = false;
        out.pass = false;
        out.calza = false;
        out.watch = false;
        out.accept = false;
        out.roll = None;
        out.claim_from = None;
        out.claim_to = None;
        out.dogs_life = false;
        out.hand_game = None;
        if self.check_seat(seat).is_err() {
            return;
        }
        out.calza = self.check_calza(seat).is_ok();
        if seat != self.turn {
            if self.rules.challenges.who == Challenger::Anyone {
                self.challengeable_into(seat, &mut out.dudo);
            }
            return;
        }
        out.watch = self.check_watch(seat).is_ok();
        let bidding = self.bidding_for(seat);
        let current = self.current.map(|c| c.1);
        bidding.ranges_into(current, &mut out.bids);
        out.push = self.may_push(seat, &out.bids);
        out.pass = self.check_pass(seat).is_ok();
        self.challengeable_into(seat, &mut out.dudo);
    }

    /// A uniformly random legal action for `seat` (pushes aside), chosen without building
    /// the list of actions: the fast path for random playouts. `None` when it may do nothing.
    pub fn random_legal_action(&self, seat: Seat, rng: &mut impl Rng) -> Option<Action> {
        if self.check_seat(seat).is_err() {
            return None;
        }
        let calza = self.check_calza(seat).is_ok();
        if seat != self.turn {
            return calza.then_some(Action::Calza);
        }
        let watch = self.check_watch(seat).is_ok();
        let bidding = self.bidding_for(seat);
        let current = self.current.map(|c| c.1);
        let mut mins = [0u16; 10];
        let mut bids = 0u32;
        for face in 1..=bidding.faces {
            if let Some(min) = bidding.min_quantity(current, face) {
                mins[usize::from(face)] = min;
                bids += u32::from(bidding.total_dice - min) + 1;
            }
        }
        let pass = self.check_pass(seat).is_ok();
        // Without passes the only claim to challenge is the last bid: no list needed.
        let with_passes = self.rules.pass.claim != PassClaim::Off;
        let targets = if with_passes { self.challengeable(seat) } else { Vec::new() };
        let target_count = if with_passes { targets.len() } else { usize::from(!self.claims.is_empty()) };
        let n = bids + u32::from(pass) + target_count as u32 + u32::from(calza) + u32::from(watch);
        if n == 0 {
            return None;
        }
        let mut k = rng.random_range(0..n);
        for face in 1..=bidding.faces {
            let min = mins[usize::from(face)];
            if min > 0 {
                let count = u32::from(bidding.total_dice - min) + 1;
                if k < count {
                    return Some(Action::Bid(Bid::new(min + k as u16, face)));
                }
                k -= count;
            }
        }
        if pass {
            if k == 0 {
                return Some(Action::Pass);
            }
            k -= 1;
        }
        match k as usize {
            0 if target_count > 0 => Some(Action::Dudo { target: None }),
            i if i < target_count => Some(Action::Dudo { target: targets.get(i).copied() }),
            i if i == target_count && calza => Some(Action::Calza),
            _ => watch.then_some(Action::Watch),
        }
    }

    /// Seats that may act now: the seat whose turn it is, then, in play order from the seat
    /// after the last claim (so the closest to the bidder comes first, as 002 settles
    /// simultaneous challenges), anyone with an exact call or an out-of-turn challenge.
    pub fn seats_to_ask(&self) -> impl Iterator<Item = Seat> + '_ {
        let over = self.is_over();
        let callers = !over && self.current.is_some();
        let calza = self.rules.exact_call.who == ExactCaller::NotBidderNorNext;
        let challenge = self.rules.challenges.who == Challenger::Anyone;
        let n = self.players.len();
        let from = self.claims.last().map_or(self.turn, |c| c.seat);
        let turn = (!over).then_some(self.turn);
        turn.into_iter().chain((1..=n).map(move |i| (from + i) % n).filter(move |&s| {
            callers
                && s != self.turn
                && ((calza && self.check_calza(s).is_ok())
                    || (challenge
                        && self.check_seat(s).is_ok()
                        && self.challengeable_iter(s).next().is_some()))
        }))
    }
}
