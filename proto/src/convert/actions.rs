//! Actions, both ways, and the table's reasons a seat leaves or a game stops.

use super::*;

pub(super) fn bid_to_wire(b: Bid) -> pb::Bid {
    pb::Bid { quantity: b.quantity.into(), face: b.face.into() }
}

pub(super) fn bid_from_wire(field: &'static str, b: Option<&pb::Bid>) -> Result<Bid, ConvertError> {
    let b = b.ok_or_else(|| bad(field, "a bid is needed"))?;
    Ok(Bid::new(narrow(field, b.quantity)?, narrow(field, b.face)?))
}

pub(super) fn hand_to_wire(h: &Hand) -> pb::Hand {
    pb::Hand { dice: h.dice.iter().map(|&d| d.into()).collect() }
}

pub(super) fn hand_from_wire(field: &'static str, h: Option<&pb::Hand>) -> Result<Hand, ConvertError> {
    let h = h.ok_or_else(|| bad(field, "a hand is needed"))?;
    if h.dice.len() > 16 {
        return Err(bad(field, "too many dice for a hand"));
    }
    Ok(Hand::new(h.dice.iter().map(|&d| narrow(field, d)).collect::<Result<_, _>>()?))
}

/// Lists of dice or positions are short; a client cannot make the engine copy megabytes.
pub(super) fn small_list<T: TryFrom<u32>>(field: &'static str, v: &[u32]) -> Result<Vec<T>, ConvertError> {
    if v.len() > 64 {
        return Err(bad(field, "too many entries"));
    }
    v.iter().map(|&x| narrow(field, x)).collect()
}

pub fn action_to_wire(a: &Action) -> pb::Action {
    use pb::action::Action as A;
    let action = match a {
        Action::Bid(b) => A::Bid(bid_to_wire(*b)),
        Action::Push { dice, bid } => {
            A::Push(pb::Push { dice: dice.iter().map(|&d| d.into()).collect(), bid: Some(bid_to_wire(*bid)) })
        }
        Action::Pass => A::Pass(pb::Empty {}),
        Action::Dudo { target } => A::Dudo(pb::Dudo { target: target.map(wire) }),
        Action::Calza => A::Calza(pb::Empty {}),
        Action::Watch => A::Watch(pb::Empty {}),
        Action::Accept => A::Accept(pb::Empty {}),
        Action::Roll { dice, show } => A::Roll(pb::Roll {
            dice: dice.iter().map(|&d| wire(d)).collect(),
            show: show.iter().map(|&d| wire(d)).collect(),
        }),
        Action::Claim(h) => A::Claim(hand_to_wire(h)),
        Action::DogsLife { bark } => A::DogsLife(pb::DogsLifeChoice { bark: *bark }),
    };
    pb::Action { action: Some(action) }
}

pub fn action_from_wire(a: &pb::Action) -> Result<Action, ConvertError> {
    use pb::action::Action as A;
    Ok(match a.action.as_ref().ok_or_else(|| bad("action", "no action given"))? {
        A::Bid(b) => Action::Bid(bid_from_wire("bid", Some(b))?),
        A::Push(p) => Action::Push {
            dice: small_list("push.dice", &p.dice)?,
            bid: bid_from_wire("push.bid", p.bid.as_ref())?,
        },
        A::Pass(_) => Action::Pass,
        A::Dudo(d) => Action::Dudo { target: d.target.map(|t| seat("dudo.target", t)).transpose()? },
        A::Calza(_) => Action::Calza,
        A::Watch(_) => Action::Watch,
        A::Accept(_) => Action::Accept,
        A::Roll(r) => {
            Action::Roll { dice: small_list("roll.dice", &r.dice)?, show: small_list("roll.show", &r.show)? }
        }
        A::Claim(h) => Action::Claim(hand_from_wire("claim", Some(h))?),
        A::DogsLife(c) => Action::DogsLife { bark: c.bark },
    })
}

/// Which of the server's limits stopped a game, on the wire.
pub fn leave_why_to_wire(why: LeaveWhy) -> pb::LeaveWhy {
    match why {
        LeaveWhy::Left => pb::LeaveWhy::Left,
        LeaveWhy::Removed => pb::LeaveWhy::Removed,
        LeaveWhy::Away => pb::LeaveWhy::Away,
        LeaveWhy::TimedOut => pb::LeaveWhy::TimedOut,
    }
}

pub fn leave_why_from_wire(why: i32) -> Option<LeaveWhy> {
    Some(match pb::LeaveWhy::try_from(why).ok()? {
        pb::LeaveWhy::Left => LeaveWhy::Left,
        pb::LeaveWhy::Removed => LeaveWhy::Removed,
        pb::LeaveWhy::Away => LeaveWhy::Away,
        pb::LeaveWhy::TimedOut => LeaveWhy::TimedOut,
    })
}

pub fn stop_why_to_wire(why: StopWhy) -> pb::game_stop::Why {
    match why {
        StopWhy::Moves => pb::game_stop::Why::Moves,
        StopWhy::Time => pb::game_stop::Why::Time,
        StopWhy::Size => pb::game_stop::Why::Size,
        StopWhy::Memory => pb::game_stop::Why::Memory,
    }
}

/// Which of the server's limits stopped a game, from the wire (`None`: not a reason).
pub fn stop_why_from_wire(why: i32) -> Option<StopWhy> {
    match pb::game_stop::Why::try_from(why).ok()? {
        pb::game_stop::Why::Moves => Some(StopWhy::Moves),
        pb::game_stop::Why::Time => Some(StopWhy::Time),
        pb::game_stop::Why::Size => Some(StopWhy::Size),
        pb::game_stop::Why::Memory => Some(StopWhy::Memory),
        pb::game_stop::Why::Unspecified => None,
    }
}
