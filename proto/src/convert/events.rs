//! Events, both ways: the table's own and the engine's, with their audiences; outward for
//! the server, inward for clients that describe them with the engine's helpers.

use super::*;

// ----- outward -----

pub(super) fn seats_to_wire(s: &[usize]) -> Vec<u32> {
    s.iter().map(|&x| wire(x)).collect()
}

pub(super) fn dice_to_wire(d: &[u8]) -> Vec<u32> {
    d.iter().map(|&x| x.into()).collect()
}

/// Hidden dice travel as 0.
pub(super) fn sight_to_wire(d: &[Option<u8>]) -> Vec<u32> {
    d.iter().map(|x| x.map_or(0, u32::from)).collect()
}

pub(super) fn showdown_to_wire(s: &Showdown) -> pb::Showdown {
    use pb::showdown::Showdown as S;
    let count =
        |bid: &Bid, actual: &u16| pb::BidCount { bid: Some(bid_to_wire(*bid)), actual: (*actual).into() };
    pb::Showdown {
        showdown: Some(match s {
            Showdown::DudoOnBid { bid, actual } => S::DudoOnBid(count(bid, actual)),
            Showdown::DudoOnPass { pass_was_true } => S::DudoOnPass(*pass_was_true),
            Showdown::Calza { bid, actual } => S::Calza(count(bid, actual)),
            Showdown::GuessesChecked { bid, actual } => S::GuessesChecked(count(bid, actual)),
        }),
    }
}

pub(super) fn audience_to_wire(a: Audience) -> pb::Audience {
    use pb::audience::To;
    pb::Audience {
        to: Some(match a {
            Audience::Everyone => To::Everyone(pb::Empty {}),
            Audience::Seats { seats } => To::Seats(pb::Seats { seats: seats.iter().map(wire).collect() }),
            Audience::Hidden { seats } => To::Hidden(pb::Seats { seats: seats.iter().map(wire).collect() }),
        }),
    }
}

pub(super) fn results_to_wire(rows: &[ResultRow]) -> pb::Results {
    pb::Results {
        rows: rows
            .iter()
            .map(|r| pb::ResultRow {
                seat: wire(r.seat),
                bid: Some(bid_to_wire(r.bid)),
                actual: r.actual.into(),
                was_true: r.was_true,
            })
            .collect(),
    }
}

/// An event on the wire, with the table's sequence number.
/// A log entry on the wire: the engine's events and the table's own share one message.
pub fn event_to_wire(seq: u64, e: &TableEvent) -> pb::Event {
    use pb::event::Kind as K;
    let kind = match e {
        TableEvent::Game(e) => return game_event_to_wire(seq, e),
        TableEvent::DiceCommitted { round, commitments, table } => K::DiceCommitted(pb::DiceCommitted {
            round: *round,
            commitments: commitments
                .iter()
                .map(|(s, h)| pb::SeatHash { seat: wire(*s), hash: h.clone() })
                .collect(),
            table: table.clone(),
        }),
        TableEvent::DiceSalts { round, salts } => K::DiceSalts(pb::DiceSalts {
            round: *round,
            salts: salts
                .iter()
                .map(|(s, salt, dice)| pb::SeatSalt {
                    seat: wire(*s),
                    salt: salt.clone(),
                    dice: dice_to_wire(dice),
                })
                .collect(),
        }),
        TableEvent::TurnTimedOut { seat, action } => {
            K::TurnTimedOut(pb::TurnTimedOut { seat: wire(*seat), action: Some(action_to_wire(action)) })
        }
        TableEvent::GameStopped { why, limit } => {
            K::GameStopped(pb::GameStop { why: stop_why_to_wire(*why) as i32, limit: *limit })
        }
        TableEvent::CallWindowLapsed { seats, cut_short } => K::CallWindowLapsed(pb::CallWindowLapsed {
            seats: seats.iter().map(|&s| wire(s)).collect(),
            cut_short: cut_short.iter().map(|&s| wire(s)).collect(),
        }),
        TableEvent::SeatLeaving { seat, why, at_round_end } => K::SeatLeaving(pb::SeatLeaving {
            seat: wire(*seat),
            why: leave_why_to_wire(*why) as i32,
            at_round_end: *at_round_end,
        }),
    };
    pb::Event {
        seq,
        audience: Some(audience_to_wire(Audience::Everyone)),
        text: String::new(),
        kind: Some(kind),
    }
}

/// One of the engine's events on the wire.
pub fn game_event_to_wire(seq: u64, e: &Event) -> pb::Event {
    use pb::event::Kind as K;
    let only = |s: usize| pb::SeatOnly { seat: wire(s) };
    let kind = match &e.kind {
        EventKind::GameStarted { seats, dice } => K::GameStarted(pb::GameStarted {
            seats: wire(*seats),
            dice: dice.iter().map(|&d| d.into()).collect(),
        }),
        EventKind::RollOff { rolls } => K::RollOff(pb::RollOff {
            rolls: rolls.iter().map(|&(s, f)| pb::SeatFace { seat: wire(s), face: f.into() }).collect(),
        }),
        EventKind::StarterChosen { seat } => K::StarterChosen(only(*seat)),
        EventKind::RoundStarted { round, starter, dice_counts, palifico, wild } => {
            K::RoundStarted(pb::RoundStarted {
                round: *round,
                starter: wire(*starter),
                dice_counts: dice_counts.iter().map(|&d| d.into()).collect(),
                palifico: seats_to_wire(palifico),
                wild: wild.map(u32::from),
            })
        }
        EventKind::DiceRolled { seat, dice } => {
            K::DiceRolled(pb::DiceRolled { seat: wire(*seat), dice: sight_to_wire(dice) })
        }
        EventKind::WildsOff => K::WildsOff(pb::Empty {}),
        EventKind::BidMade { seat, bid } => {
            K::BidMade(pb::BidMade { seat: wire(*seat), bid: Some(bid_to_wire(*bid)) })
        }
        EventKind::DicePushed { seat, pushed } => {
            K::DicePushed(pb::DicePushed { seat: wire(*seat), pushed: dice_to_wire(pushed) })
        }
        EventKind::Passed { seat } => K::Passed(only(*seat)),
        EventKind::DudoCalled { seat, target } => {
            K::DudoCalled(pb::DudoCalled { seat: wire(*seat), target: wire(*target) })
        }
        EventKind::CalzaCalled { seat } => K::CalzaCalled(only(*seat)),
        EventKind::DiceRevealed { dice, counted } => K::DiceRevealed(pb::DiceRevealed {
            dice: dice.iter().map(|d| pb::Dice { dice: dice_to_wire(d) }).collect(),
            counted: counted.as_ref().map_or_else(Vec::new, |c| {
                c.marks
                    .iter()
                    .enumerate()
                    .map(|(seat, marks)| pb::CountedDice {
                        dice: marks.clone(),
                        count: u32::from(c.count(seat)),
                    })
                    .collect()
            }),
            face: counted.as_ref().map(|c| u32::from(c.face)),
            total: counted.as_ref().map(|c| u32::from(c.total)),
        }),
        EventKind::RoundSettled { showdown, winner, loser } => K::RoundSettled(pb::RoundSettled {
            showdown: Some(showdown_to_wire(showdown)),
            winner: wire(*winner),
            loser: wire(*loser),
        }),
        EventKind::DiceLost { seat, count, left } => {
            K::DiceLost(pb::DiceLost { seat: wire(*seat), count: (*count).into(), left: (*left).into() })
        }
        EventKind::DiceWon { seat, count, now } => {
            K::DiceWon(pb::DiceWon { seat: wire(*seat), count: (*count).into(), now: (*now).into() })
        }
        EventKind::DiceGiven { from, to, count } => {
            K::DiceGiven(pb::DiceGiven { from: wire(*from), to: wire(*to), count: (*count).into() })
        }
        EventKind::Watched { seat } => K::Watched(only(*seat)),
        EventKind::Scored { seat, points, total, discarded } => {
            K::Scored(pb::Scored { seat: wire(*seat), points: *points, total: *total, discarded: *discarded })
        }
        EventKind::Paid { from, to, amount } => {
            K::Paid(pb::Paid { from: wire(*from), to: wire(*to), amount: *amount })
        }
        EventKind::Drank { seat, drinks, total } => {
            K::Drank(pb::Drank { seat: wire(*seat), drinks: *drinks, total: *total })
        }
        EventKind::Eliminated { seat, place } => {
            K::Eliminated(pb::Placed { seat: wire(*seat), place: wire(*place) })
        }
        EventKind::SeatLeft { seat, place, starter, palifico, wild } => K::SeatLeft(pb::SeatLeft {
            seat: wire(*seat),
            place: wire(*place),
            starter: wire(*starter),
            palifico: seats_to_wire(palifico),
            wild: wild.map(u32::from),
        }),
        EventKind::ResultsTable { rows } => K::ResultsTable(results_to_wire(rows)),
        EventKind::HandStarted { hand, starter } => {
            K::HandStarted(pb::HandStarted { hand: *hand, starter: wire(*starter) })
        }
        EventKind::Accepted { seat } => K::Accepted(only(*seat)),
        EventKind::HandRolled { seat, count } => {
            K::HandRolled(pb::HandRolled { seat: wire(*seat), count: wire(*count) })
        }
        EventKind::HandSeen { seat, dice } => {
            K::HandSeen(pb::HandSeen { seat: wire(*seat), dice: dice_to_wire(dice) })
        }
        EventKind::DiceShown { seat, dice } => K::DiceShown(pb::DiceShown {
            seat: wire(*seat),
            dice: dice.iter().map(|&(p, f)| pb::PositionFace { position: wire(p), face: f.into() }).collect(),
        }),
        EventKind::Claimed { seat, spoken, claim } => K::Claimed(pb::Claimed {
            seat: wire(*seat),
            spoken: Some(hand_to_wire(spoken)),
            claim: Some(hand_to_wire(claim)),
        }),
        EventKind::HandRevealed { dice } => K::HandRevealed(pb::HandRevealed { dice: dice_to_wire(dice) }),
        EventKind::ChallengeSettled { claim, hand, winner, loser } => {
            K::ChallengeSettled(pb::ChallengeSettled {
                claim: Some(hand_to_wire(claim)),
                hand: Some(hand_to_wire(hand)),
                winner: wire(*winner),
                loser: wire(*loser),
            })
        }
        EventKind::FiveAces { seat, made } => {
            K::FiveAces(pb::FiveAcesTried { seat: wire(*seat), made: *made })
        }
        EventKind::CupCaught { seat, caught, drinks } => {
            K::CupCaught(pb::CupCaught { seat: wire(*seat), caught: *caught, drinks: *drinks })
        }
        EventKind::LifeLost { seat, lives } => {
            K::LifeLost(pb::LifeLost { seat: wire(*seat), lives: (*lives).into() })
        }
        EventKind::DogsLife { seat, barked } => {
            K::DogsLife(pb::DogsLifeTaken { seat: wire(*seat), barked: *barked })
        }
        EventKind::GameOver { standings, points, money, drinks } => K::GameOver(pb::GameOver {
            standings: seats_to_wire(standings),
            points: points.clone(),
            money: money.clone(),
            drinks: drinks.clone(),
        }),
    };
    pb::Event { seq, audience: Some(audience_to_wire(e.audience)), text: String::new(), kind: Some(kind) }
}

// ----- inward (for clients) -----

/// Any length: these come from the server, whose messages are bounded by the transport.
pub(super) fn list<T: TryFrom<u32>>(field: &'static str, v: &[u32]) -> Result<Vec<T>, ConvertError> {
    v.iter().map(|&x| narrow(field, x)).collect()
}

pub(super) fn seats_from_wire(field: &'static str, v: &[u32]) -> Result<Vec<usize>, ConvertError> {
    list(field, v)
}

/// 0 on the wire is a die hidden from the viewer.
pub(super) fn sight_from_wire(field: &'static str, v: &[u32]) -> Result<Vec<Option<u8>>, ConvertError> {
    v.iter().map(|&x| if x == 0 { Ok(None) } else { narrow(field, x).map(Some) }).collect()
}

pub(super) fn opt_face(field: &'static str, v: Option<u32>) -> Result<Option<u8>, ConvertError> {
    v.map(|x| narrow(field, x)).transpose()
}

pub(super) fn dice_rows(field: &'static str, rows: &[pb::Dice]) -> Result<Vec<Vec<u8>>, ConvertError> {
    rows.iter().map(|d| list(field, &d.dice)).collect()
}

/// A reveal's counts, checked against its dice: a mark list per seat, a mark per die, each
/// seat's count its marks, the total their sum. None when the claim was not a count.
pub(super) fn counted_from_wire(
    x: &pb::DiceRevealed,
    dice: &[Vec<u8>],
) -> Result<Option<Counted>, ConvertError> {
    let Some(face) = x.face else {
        if !x.counted.is_empty() || x.total.is_some() {
            return Err(bad("dice_revealed.face", "none given, but dice were counted"));
        }
        return Ok(None);
    };
    let face = narrow("dice_revealed.face", face)?;
    let total: u16 =
        narrow("dice_revealed.total", x.total.ok_or_else(|| bad("dice_revealed.total", "none given"))?)?;
    if x.counted.len() != dice.len() {
        let problem = format!("{} seats counted, {} revealed", x.counted.len(), dice.len());
        return Err(bad("dice_revealed.counted", problem));
    }
    let mut sum = 0u32;
    for (c, d) in x.counted.iter().zip(dice) {
        if c.dice.len() != d.len() {
            let problem = format!("{} marks for {} dice", c.dice.len(), d.len());
            return Err(bad("dice_revealed.counted", problem));
        }
        let marked = c.dice.iter().filter(|&&m| m).count();
        if usize::try_from(c.count).ok() != Some(marked) {
            let problem = format!("a count of {} for {marked} dice marked", c.count);
            return Err(bad("dice_revealed.counted.count", problem));
        }
        sum = sum.saturating_add(c.count);
    }
    if sum != u32::from(total) {
        return Err(bad("dice_revealed.total", format!("{total}, but the seats' counts add up to {sum}")));
    }
    Ok(Some(Counted { face, marks: x.counted.iter().map(|c| c.dice.clone()).collect(), total }))
}

pub(super) fn showdown_from_wire(s: Option<&pb::Showdown>) -> Result<Showdown, ConvertError> {
    use pb::showdown::Showdown as S;
    let count = |c: &pb::BidCount| -> Result<(Bid, u16), ConvertError> {
        Ok((bid_from_wire("showdown.bid", c.bid.as_ref())?, narrow("showdown.actual", c.actual)?))
    };
    Ok(match s.and_then(|s| s.showdown.as_ref()).ok_or_else(|| bad("showdown", "none given"))? {
        S::DudoOnBid(c) => {
            let (bid, actual) = count(c)?;
            Showdown::DudoOnBid { bid, actual }
        }
        S::DudoOnPass(t) => Showdown::DudoOnPass { pass_was_true: *t },
        S::Calza(c) => {
            let (bid, actual) = count(c)?;
            Showdown::Calza { bid, actual }
        }
        S::GuessesChecked(c) => {
            let (bid, actual) = count(c)?;
            Showdown::GuessesChecked { bid, actual }
        }
    })
}

pub(super) fn audience_from_wire(a: Option<&pb::Audience>) -> Result<Audience, ConvertError> {
    use pb::audience::To;
    let set = |s: &pb::Seats| -> Result<dudo_rules::event::SeatSet, ConvertError> {
        Ok(seats_from_wire("audience.seats", &s.seats)?.into())
    };
    Ok(match a.and_then(|a| a.to.as_ref()).ok_or_else(|| bad("audience", "none given"))? {
        To::Everyone(_) => Audience::Everyone,
        To::Seats(s) => Audience::Seats { seats: set(s)? },
        To::Hidden(s) => Audience::Hidden { seats: set(s)? },
    })
}

/// An event from the wire, and its sequence number.
pub fn event_from_wire(e: &pb::Event) -> Result<(u64, TableEvent), ConvertError> {
    use pb::event::Kind as K;
    let s = |field: &'static str, v: u32| seat(field, v);
    let table_event = match e.kind.as_ref().ok_or_else(|| bad("event.kind", "none given"))? {
        K::DiceCommitted(x) => TableEvent::DiceCommitted {
            round: x.round,
            commitments: x
                .commitments
                .iter()
                .map(|c| Ok((s("dice_committed.seat", c.seat)?, c.hash.clone())))
                .collect::<Result<_, ConvertError>>()?,
            table: x.table.clone(),
        },
        K::DiceSalts(x) => TableEvent::DiceSalts {
            round: x.round,
            salts: x
                .salts
                .iter()
                .map(|c| {
                    Ok((s("dice_salts.seat", c.seat)?, c.salt.clone(), list("dice_salts.dice", &c.dice)?))
                })
                .collect::<Result<_, ConvertError>>()?,
        },
        K::TurnTimedOut(x) => TableEvent::TurnTimedOut {
            seat: s("turn_timed_out.seat", x.seat)?,
            action: action_from_wire(
                x.action.as_ref().ok_or_else(|| bad("turn_timed_out.action", "none given"))?,
            )?,
        },
        K::GameStopped(x) => TableEvent::GameStopped {
            why: stop_why_from_wire(x.why)
                .ok_or_else(|| bad("game_stopped.why", format!("{} is not a reason", x.why)))?,
            limit: x.limit,
        },
        K::CallWindowLapsed(x) => TableEvent::CallWindowLapsed {
            seats: x.seats.iter().map(|&v| s("call_window_lapsed.seats", v)).collect::<Result<_, _>>()?,
            cut_short: x
                .cut_short
                .iter()
                .map(|&v| s("call_window_lapsed.cut_short", v))
                .collect::<Result<_, _>>()?,
        },
        K::SeatLeaving(x) => TableEvent::SeatLeaving {
            seat: s("seat_leaving.seat", x.seat)?,
            why: leave_why_from_wire(x.why)
                .ok_or_else(|| bad("seat_leaving.why", format!("{} is not a reason", x.why)))?,
            at_round_end: x.at_round_end,
        },
        _ => {
            let (seq, event) = game_event_from_wire(e)?;
            return Ok((seq, TableEvent::Game(event)));
        }
    };
    Ok((e.seq, table_event))
}

/// One of the engine's events from the wire (an error for the table's own).
pub fn game_event_from_wire(e: &pb::Event) -> Result<(u64, Event), ConvertError> {
    use pb::event::Kind as K;
    let s = |field: &'static str, v: u32| seat(field, v);
    let kind = match e.kind.as_ref().ok_or_else(|| bad("event.kind", "none given"))? {
        K::DiceCommitted(_)
        | K::DiceSalts(_)
        | K::TurnTimedOut(_)
        | K::GameStopped(_)
        | K::CallWindowLapsed(_)
        | K::SeatLeaving(_) => {
            return Err(bad("event.kind", "a table's own event, not the engine's"));
        }
        K::GameStarted(x) => EventKind::GameStarted {
            seats: s("game_started.seats", x.seats)?,
            dice: list("game_started.dice", &x.dice)?,
        },
        K::RollOff(x) => EventKind::RollOff {
            rolls: x
                .rolls
                .iter()
                .map(|r| Ok((s("roll_off.seat", r.seat)?, narrow("roll_off.face", r.face)?)))
                .collect::<Result<_, ConvertError>>()?,
        },
        K::StarterChosen(x) => EventKind::StarterChosen { seat: s("starter_chosen.seat", x.seat)? },
        K::RoundStarted(x) => EventKind::RoundStarted {
            round: x.round,
            starter: s("round_started.starter", x.starter)?,
            dice_counts: list("round_started.dice_counts", &x.dice_counts)?,
            palifico: seats_from_wire("round_started.palifico", &x.palifico)?,
            wild: opt_face("round_started.wild", x.wild)?,
        },
        K::DiceRolled(x) => EventKind::DiceRolled {
            seat: s("dice_rolled.seat", x.seat)?,
            dice: sight_from_wire("dice_rolled.dice", &x.dice)?,
        },
        K::WildsOff(_) => EventKind::WildsOff,
        K::BidMade(x) => EventKind::BidMade {
            seat: s("bid_made.seat", x.seat)?,
            bid: bid_from_wire("bid_made.bid", x.bid.as_ref())?,
        },
        K::DicePushed(x) => EventKind::DicePushed {
            seat: s("dice_pushed.seat", x.seat)?,
            pushed: list("dice_pushed.pushed", &x.pushed)?,
        },
        K::Passed(x) => EventKind::Passed { seat: s("passed.seat", x.seat)? },
        K::DudoCalled(x) => EventKind::DudoCalled {
            seat: s("dudo_called.seat", x.seat)?,
            target: s("dudo_called.target", x.target)?,
        },
        K::CalzaCalled(x) => EventKind::CalzaCalled { seat: s("calza_called.seat", x.seat)? },
        K::DiceRevealed(x) => {
            let dice = dice_rows("dice_revealed.dice", &x.dice)?;
            let counted = counted_from_wire(x, &dice)?;
            EventKind::DiceRevealed { dice, counted }
        }
        K::RoundSettled(x) => EventKind::RoundSettled {
            showdown: showdown_from_wire(x.showdown.as_ref())?,
            winner: s("round_settled.winner", x.winner)?,
            loser: s("round_settled.loser", x.loser)?,
        },
        K::DiceLost(x) => EventKind::DiceLost {
            seat: s("dice_lost.seat", x.seat)?,
            count: narrow("dice_lost.count", x.count)?,
            left: narrow("dice_lost.left", x.left)?,
        },
        K::DiceWon(x) => EventKind::DiceWon {
            seat: s("dice_won.seat", x.seat)?,
            count: narrow("dice_won.count", x.count)?,
            now: narrow("dice_won.now", x.now)?,
        },
        K::DiceGiven(x) => EventKind::DiceGiven {
            from: s("dice_given.from", x.from)?,
            to: s("dice_given.to", x.to)?,
            count: narrow("dice_given.count", x.count)?,
        },
        K::Watched(x) => EventKind::Watched { seat: s("watched.seat", x.seat)? },
        K::Scored(x) => EventKind::Scored {
            seat: s("scored.seat", x.seat)?,
            points: x.points,
            total: x.total,
            discarded: x.discarded,
        },
        K::Paid(x) => {
            EventKind::Paid { from: s("paid.from", x.from)?, to: s("paid.to", x.to)?, amount: x.amount }
        }
        K::Drank(x) => EventKind::Drank { seat: s("drank.seat", x.seat)?, drinks: x.drinks, total: x.total },
        K::Eliminated(x) => EventKind::Eliminated {
            seat: s("eliminated.seat", x.seat)?,
            place: s("eliminated.place", x.place)?,
        },
        K::SeatLeft(x) => EventKind::SeatLeft {
            seat: s("seat_left.seat", x.seat)?,
            place: s("seat_left.place", x.place)?,
            starter: s("seat_left.starter", x.starter)?,
            palifico: seats_from_wire("seat_left.palifico", &x.palifico)?,
            wild: opt_face("seat_left.wild", x.wild)?,
        },
        K::ResultsTable(x) => EventKind::ResultsTable {
            rows: x
                .rows
                .iter()
                .map(|r| {
                    Ok(ResultRow {
                        seat: s("results_table.seat", r.seat)?,
                        bid: bid_from_wire("results_table.bid", r.bid.as_ref())?,
                        actual: narrow("results_table.actual", r.actual)?,
                        was_true: r.was_true,
                    })
                })
                .collect::<Result<_, ConvertError>>()?,
        },
        K::HandStarted(x) => {
            EventKind::HandStarted { hand: x.hand, starter: s("hand_started.starter", x.starter)? }
        }
        K::Accepted(x) => EventKind::Accepted { seat: s("accepted.seat", x.seat)? },
        K::HandRolled(x) => EventKind::HandRolled {
            seat: s("hand_rolled.seat", x.seat)?,
            count: s("hand_rolled.count", x.count)?,
        },
        K::HandSeen(x) => {
            EventKind::HandSeen { seat: s("hand_seen.seat", x.seat)?, dice: list("hand_seen.dice", &x.dice)? }
        }
        K::DiceShown(x) => EventKind::DiceShown {
            seat: s("dice_shown.seat", x.seat)?,
            dice: x
                .dice
                .iter()
                .map(|d| Ok((s("dice_shown.position", d.position)?, narrow("dice_shown.face", d.face)?)))
                .collect::<Result<_, ConvertError>>()?,
        },
        K::Claimed(x) => EventKind::Claimed {
            seat: s("claimed.seat", x.seat)?,
            spoken: hand_from_wire("claimed.spoken", x.spoken.as_ref())?,
            claim: hand_from_wire("claimed.claim", x.claim.as_ref())?,
        },
        K::HandRevealed(x) => EventKind::HandRevealed { dice: list("hand_revealed.dice", &x.dice)? },
        K::ChallengeSettled(x) => EventKind::ChallengeSettled {
            claim: hand_from_wire("challenge_settled.claim", x.claim.as_ref())?,
            hand: hand_from_wire("challenge_settled.hand", x.hand.as_ref())?,
            winner: s("challenge_settled.winner", x.winner)?,
            loser: s("challenge_settled.loser", x.loser)?,
        },
        K::FiveAces(x) => EventKind::FiveAces { seat: s("five_aces.seat", x.seat)?, made: x.made },
        K::CupCaught(x) => {
            EventKind::CupCaught { seat: s("cup_caught.seat", x.seat)?, caught: x.caught, drinks: x.drinks }
        }
        K::LifeLost(x) => EventKind::LifeLost {
            seat: s("life_lost.seat", x.seat)?,
            lives: narrow("life_lost.lives", x.lives)?,
        },
        K::DogsLife(x) => EventKind::DogsLife { seat: s("dogs_life.seat", x.seat)?, barked: x.barked },
        K::GameOver(x) => EventKind::GameOver {
            standings: seats_from_wire("game_over.standings", &x.standings)?,
            points: x.points.clone(),
            money: x.money.clone(),
            drinks: x.drinks.clone(),
        },
    };
    Ok((e.seq, Event { audience: audience_from_wire(e.audience.as_ref())?, kind }))
}
