//! Views and legal actions, both ways: what one seat sees, and everything it may do.

use super::*;

pub(super) fn claim_to_wire(c: &Claim) -> pb::Claim {
    use pb::claim::Kind;
    pb::Claim {
        seat: wire(c.seat),
        kind: Some(match c.kind {
            ClaimKind::Bid(b) => Kind::Bid(bid_to_wire(b)),
            ClaimKind::PushBid(b) => Kind::PushBid(bid_to_wire(b)),
            ClaimKind::Pass => Kind::Pass(pb::Empty {}),
        }),
    }
}

pub(super) fn player_to_wire(p: &PlayerView) -> pb::PlayerView {
    pb::PlayerView {
        dice: p.dice.into(),
        pushed: dice_to_wire(&p.pushed),
        place: p.place.map(wire),
        left: p.left,
        had_palifico: p.had_palifico,
        exact_used: p.exact_used,
        score: p.score,
        money: p.money,
        drinks: p.drinks,
        watching: p.watching,
        last_guess: p.last_guess.map(bid_to_wire),
        lives: p.lives.into(),
    }
}

pub(super) fn result_to_wire(r: &RoundResult) -> pb::RoundResult {
    pb::RoundResult {
        round: r.round,
        dice: r.dice.iter().map(|d| pb::Dice { dice: dice_to_wire(d) }).collect(),
        showdown: Some(showdown_to_wire(&r.showdown)),
        winner: wire(r.winner),
        loser: wire(r.loser),
    }
}

pub(super) fn hand_view_to_wire(h: &HandView) -> pb::HandView {
    pb::HandView {
        holder: wire(h.holder),
        accepted: h.accepted,
        dice: sight_to_wire(&h.dice),
        shown: h.shown.clone(),
        claim: h
            .claim
            .as_ref()
            .map(|(s, hand)| pb::SeatHand { seat: wire(*s), hand: Some(hand_to_wire(hand)) }),
        rolls_this_turn: h.rolls_this_turn.into(),
        five_aces_tries: h.five_aces_tries.map(u32::from),
        dogs_life_pending: h.dogs_life_pending.map(wire),
        dogs_life_taken: h.dogs_life_taken,
    }
}

pub fn view_to_wire(v: &View) -> pb::View {
    pb::View {
        seat: v.seat.map(wire),
        over: v.phase == dudo_rules::game::Phase::Over,
        round: v.round,
        starter: wire(v.starter),
        turn: v.turn.map(wire),
        players: v.players.iter().map(player_to_wire).collect(),
        my_dice: sight_to_wire(&v.my_dice),
        all_dice: v.all_dice.iter().flatten().map(|d| pb::Dice { dice: dice_to_wire(d) }).collect(),
        sees_all_dice: v.all_dice.is_some(),
        claims: v.claims.iter().map(claim_to_wire).collect(),
        current_bid: v.current_bid.map(|(s, b)| pb::SeatBid { seat: wire(s), bid: Some(bid_to_wire(b)) }),
        wild: v.wild.map(u32::from),
        palifico: seats_to_wire(&v.palifico),
        last_result: v.last_result.as_deref().map(result_to_wire),
        standings: seats_to_wire(&v.standings),
        hand: v.hand.as_ref().map(hand_view_to_wire),
        moves: v.moves,
    }
}

pub fn legal_to_wire(l: &Legal) -> pb::Legal {
    pb::Legal {
        bids: l
            .bids
            .iter()
            .map(|r: &BidRange| pb::BidRange {
                face: r.face.into(),
                min_quantity: r.min_quantity.into(),
                max_quantity: r.max_quantity.into(),
            })
            .collect(),
        push: l.push,
        pass: l.pass,
        dudo: seats_to_wire(&l.dudo),
        calza: l.calza,
        watch: l.watch,
        accept: l.accept,
        roll: l.roll.map(|o| pb::RollOptions { all: o.all, may_show: o.may_show, drinks: o.drinks.into() }),
        claim_from: l.claim_from.as_ref().map(hand_to_wire),
        dogs_life: l.dogs_life,
        claim_to: l.claim_to.as_ref().map(hand_to_wire),
        claim_held: l.claim_held,
    }
}

pub(super) fn claim_from_wire(c: &pb::Claim) -> Result<Claim, ConvertError> {
    use pb::claim::Kind;
    Ok(Claim {
        seat: seat("claims.seat", c.seat)?,
        kind: match c.kind.as_ref().ok_or_else(|| bad("claims.kind", "none given"))? {
            Kind::Bid(b) => ClaimKind::Bid(bid_from_wire("claims.bid", Some(b))?),
            Kind::PushBid(b) => ClaimKind::PushBid(bid_from_wire("claims.push_bid", Some(b))?),
            Kind::Pass(_) => ClaimKind::Pass,
        },
    })
}

pub(super) fn player_from_wire(p: &pb::PlayerView) -> Result<PlayerView, ConvertError> {
    Ok(PlayerView {
        dice: narrow("players.dice", p.dice)?,
        pushed: list("players.pushed", &p.pushed)?,
        place: p.place.map(|x| seat("players.place", x)).transpose()?,
        left: p.left,
        had_palifico: p.had_palifico,
        exact_used: p.exact_used,
        score: p.score,
        money: p.money,
        drinks: p.drinks,
        watching: p.watching,
        last_guess: p
            .last_guess
            .as_ref()
            .map(|b| bid_from_wire("players.last_guess", Some(b)))
            .transpose()?,
        lives: narrow("players.lives", p.lives)?,
    })
}

pub(super) fn hand_view_from_wire(h: &pb::HandView) -> Result<HandView, ConvertError> {
    Ok(HandView {
        holder: seat("hand.holder", h.holder)?,
        accepted: h.accepted,
        dice: sight_from_wire("hand.dice", &h.dice)?,
        shown: h.shown.clone(),
        claim: h
            .claim
            .as_ref()
            .map(|c| {
                Ok((seat("hand.claim.seat", c.seat)?, hand_from_wire("hand.claim.hand", c.hand.as_ref())?))
            })
            .transpose()?,
        rolls_this_turn: narrow("hand.rolls_this_turn", h.rolls_this_turn)?,
        five_aces_tries: h.five_aces_tries.map(|x| narrow("hand.five_aces_tries", x)).transpose()?,
        dogs_life_pending: h.dogs_life_pending.map(|x| seat("hand.dogs_life_pending", x)).transpose()?,
        dogs_life_taken: h.dogs_life_taken,
    })
}

/// A view from the wire.
pub fn view_from_wire(v: &pb::View) -> Result<View, ConvertError> {
    Ok(View {
        seat: v.seat.map(|s| seat("view.seat", s)).transpose()?,
        phase: if v.over { dudo_rules::game::Phase::Over } else { dudo_rules::game::Phase::Bidding },
        round: v.round,
        starter: seat("view.starter", v.starter)?,
        turn: v.turn.map(|s| seat("view.turn", s)).transpose()?,
        players: v.players.iter().map(player_from_wire).collect::<Result<_, _>>()?,
        my_dice: sight_from_wire("view.my_dice", &v.my_dice)?,
        all_dice: if v.sees_all_dice { Some(dice_rows("view.all_dice", &v.all_dice)?) } else { None },
        claims: v.claims.iter().map(claim_from_wire).collect::<Result<_, _>>()?,
        current_bid: v
            .current_bid
            .as_ref()
            .map(|b| {
                Ok((
                    seat("view.current_bid.seat", b.seat)?,
                    bid_from_wire("view.current_bid", b.bid.as_ref())?,
                ))
            })
            .transpose()?,
        wild: opt_face("view.wild", v.wild)?,
        palifico: seats_from_wire("view.palifico", &v.palifico)?,
        last_result: v
            .last_result
            .as_ref()
            .map(|r| {
                Ok(std::sync::Arc::new(RoundResult {
                    round: r.round,
                    dice: dice_rows("view.last_result.dice", &r.dice)?,
                    showdown: showdown_from_wire(r.showdown.as_ref())?,
                    winner: seat("view.last_result.winner", r.winner)?,
                    loser: seat("view.last_result.loser", r.loser)?,
                }))
            })
            .transpose()?,
        standings: seats_from_wire("view.standings", &v.standings)?,
        hand: v.hand.as_ref().map(hand_view_from_wire).transpose()?,
        moves: v.moves,
    })
}

/// Legal actions from the wire; the rule set says which individual-hand game (if any) they
/// are for, which the engine needs to list them.
pub fn legal_from_wire(l: &pb::Legal, rules: &r::RuleSet) -> Result<Legal, ConvertError> {
    let mut legal = Legal {
        bids: l
            .bids
            .iter()
            .map(|b| {
                Ok(BidRange {
                    face: narrow("legal.bids.face", b.face)?,
                    min_quantity: narrow("legal.bids.min_quantity", b.min_quantity)?,
                    max_quantity: narrow("legal.bids.max_quantity", b.max_quantity)?,
                })
            })
            .collect::<Result<_, ConvertError>>()?,
        push: l.push,
        pass: l.pass,
        dudo: seats_from_wire("legal.dudo", &l.dudo)?,
        calza: l.calza,
        watch: l.watch,
        accept: l.accept,
        roll: l
            .roll
            .map(|o| {
                Ok::<_, ConvertError>(dudo_rules::game::RollOptions {
                    all: o.all,
                    may_show: o.may_show,
                    drinks: narrow("legal.roll.drinks", o.drinks)?,
                })
            })
            .transpose()?,
        claim_from: l.claim_from.as_ref().map(|h| hand_from_wire("legal.claim_from", Some(h))).transpose()?,
        claim_to: l.claim_to.as_ref().map(|h| hand_from_wire("legal.claim_to", Some(h))).transpose()?,
        claim_held: l.claim_held,
        dogs_life: l.dogs_life,
        hand_game: rules.family.hand_game(),
    };
    // The engine's "nothing to do" is the default value, game or not.
    if legal.is_empty() {
        legal.hand_game = None;
    }
    Ok(legal)
}
