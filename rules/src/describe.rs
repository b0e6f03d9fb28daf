//! Events in words, for people: `dudo script --format text`, the terminal client, replays.

use crate::bid::{Bid, face_name};
use crate::event::{Audience, Event, EventKind, Showdown};
use crate::hand::{Hand, HandGame};
use crate::ruleset::{GameEnd, RuleSet};

fn name(names: &[String], seat: usize) -> String {
    names.get(seat).cloned().unwrap_or_else(|| format!("seat {seat}"))
}

fn dice_text(dice: &[Option<u8>]) -> String {
    let faces: Vec<String> = dice.iter().map(|d| d.map_or("?".to_string(), |f| f.to_string())).collect();
    faces.join(" ")
}

/// "1 life", "3 lives": a count with its noun (the terminal's table says its tallies so too).
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "there was 1", "there were 3", "there were none": a count found at a showdown.
pub fn there_were(n: impl Into<u64>) -> String {
    match n.into() {
        0 => "there were none".to_string(),
        1 => "there was 1".to_string(),
        n => format!("there were {n}"),
    }
}

/// The exact call with the bid it is on, when known: "Ann calls Calza on Ben's bid of 3
/// fives". `call` is the rule set's name for it (Calza, Jonti, Exact, Spot on).
pub fn exact_call_on(caller: usize, on: Option<(usize, Bid)>, call: &str, names: &[String]) -> String {
    match on {
        Some((bidder, bid)) => {
            format!("{} calls {call} on {}'s bid of {bid}", name(names, caller), name(names, bidder))
        }
        None => format!("{} calls {call}", name(names, caller)),
    }
}

/// Describes a game's events in order, remembering what a line needs from earlier ones (the
/// bid an exact call is on), for texts read start to end: a table's log, scripts, replays.
/// Made [`for_rules`](Narrator::for_rules), it says each event in the words of the game being
/// played (the exact call by its name, the points game's guesses and doubts).
#[derive(Clone, Debug)]
pub struct Narrator {
    bid: Option<(usize, Bid)>,
    /// The exact call's name: Calza, Jonti, Exact.
    exact_call: &'static str,
    /// The points game: a bid is a guess, a challenge a doubt.
    points: bool,
    game: Option<HandGame>,
    /// The fewest players still in for a palifico round, when the rules have them: a round
    /// where someone is down to one die without one says why.
    palifico_from: Option<u8>,
}

impl Default for Narrator {
    fn default() -> Narrator {
        Narrator { bid: None, exact_call: "Calza", points: false, game: None, palifico_from: None }
    }
}

impl Narrator {
    /// A narrator for a game played by `rules`.
    pub fn for_rules(rules: &RuleSet) -> Narrator {
        let exact_call = match crate::game::exact_call_name(rules) {
            "jonti" => "Jonti",
            "exact" => "Exact",
            _ => "Calza",
        };
        let points = matches!(rules.game_end, GameEnd::Points(_));
        let palifico_from = (rules.palifico.trigger != crate::ruleset::PalificoTrigger::Off)
            .then_some(rules.palifico.min_players);
        Narrator { bid: None, exact_call, points, game: rules.family.hand_game(), palifico_from }
    }

    /// One line for `event`, as [`describe_in`] says it, with the bid an exact call is on.
    pub fn line(&mut self, event: &EventKind, names: &[String], game: Option<HandGame>) -> String {
        match event {
            EventKind::RoundStarted { dice_counts, palifico, .. } => {
                self.bid = None;
                let line = describe_in(event, names, game);
                let still_in = dice_counts.iter().filter(|&&c| c > 0).count();
                return match self.palifico_from {
                    Some(least)
                        if palifico.is_empty()
                            && dice_counts.contains(&1)
                            && still_in < usize::from(least) =>
                    {
                        format!("{line} (no palifico round: it needs {least} players still in)")
                    }
                    _ => line,
                };
            }
            EventKind::HandStarted { .. } => self.bid = None,
            EventKind::BidMade { seat, bid } => self.bid = Some((*seat, *bid)),
            EventKind::CalzaCalled { seat } => return exact_call_on(*seat, self.bid, self.exact_call, names),
            _ => {}
        }
        describe_in(event, names, game)
    }

    /// One line for `event` as its audience reads it: a fact for one seat alone ever (what it
    /// was shown of its own dice) is said to that seat ("Your dice: 3 5 6"); everything else
    /// names the seats, since hidden facts are everyone's once the game is over.
    pub fn line_for(&mut self, event: &Event, names: &[String]) -> String {
        let only = match event.audience {
            Audience::Seats { seats } => {
                let mut them = seats.iter();
                them.next().filter(|_| them.next().is_none())
            }
            Audience::Everyone | Audience::Hidden { .. } => None,
        };
        let n = |s: usize| name(names, s);
        match &event.kind {
            EventKind::DiceRolled { seat, dice } if only == Some(*seat) => {
                format!("Your dice: {}", dice_text(dice))
            }
            EventKind::BidMade { seat, bid } if self.points => {
                self.bid = Some((*seat, *bid));
                format!("{} guesses {bid}", n(*seat))
            }
            EventKind::DudoCalled { seat, target } if self.points => {
                format!("{} doubts {}'s guess", n(*seat), n(*target))
            }
            kind => {
                let game = self.game;
                self.line(kind, names, game)
            }
        }
    }
}

/// "1st", "2nd", "3rd", "4th"… for a finishing place.
pub fn place_text(place: usize) -> String {
    let suffix = match (place % 10, place % 100) {
        (1, p) if p != 11 => "st",
        (2, p) if p != 12 => "nd",
        (3, p) if p != 13 => "rd",
        _ => "th",
    };
    format!("{place}{suffix}")
}

/// One line describing `event`, with seats named by `names`.
pub fn describe(event: &EventKind, names: &[String]) -> String {
    describe_in(event, names, None)
}

/// [`describe`] for a game whose hands are written in their own symbols (poker dice: 9TJQKA).
pub fn describe_in(event: &EventKind, names: &[String], game: Option<HandGame>) -> String {
    let n = |s: usize| name(names, s);
    let hand = |h: &Hand| match game {
        Some(g) => h.text(g),
        None => h.to_string(),
    };
    let faces = |d: &[u8]| -> String {
        d.iter().map(|&f| game.map_or_else(|| char::from(b'0' + f), |g| g.face_symbol(f))).collect()
    };
    match event {
        EventKind::GameStarted { seats, dice } => {
            let counts: Vec<String> = dice.iter().map(|d| d.to_string()).collect();
            format!("A game for {seats} players begins; dice: {}", counts.join(", "))
        }
        EventKind::RollOff { rolls } => {
            let parts: Vec<String> = rolls.iter().map(|(s, f)| format!("{} {f}", n(*s))).collect();
            format!("Roll-off: {}", parts.join(", "))
        }
        EventKind::StarterChosen { seat } => format!("{} makes the first call", n(*seat)),
        EventKind::RoundStarted { round, starter, dice_counts, palifico, wild } => {
            let counts: Vec<String> = dice_counts
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(s, c)| format!("{} {c}", n(s)))
                .collect();
            let special = if palifico.is_empty() {
                String::new()
            } else {
                let who: Vec<String> = palifico.iter().map(|&s| n(s)).collect();
                format!(": a palifico round for {}", who.join(" and "))
            };
            let wild = match wild {
                Some(w) => format!("{} wild", face_name(*w, true)),
                None => "no wilds".to_string(),
            };
            format!("Round {round}{special} ({wild}); {} starts; dice: {}", n(*starter), counts.join(", "))
        }
        EventKind::DiceRolled { seat, dice } => format!("{} rolls {}", n(*seat), dice_text(dice)),
        EventKind::WildsOff => "The round opened on ones: ones are not wild this round".to_string(),
        EventKind::BidMade { seat, bid } => format!("{} bids {bid}", n(*seat)),
        EventKind::DicePushed { seat, pushed } => {
            let faces: Vec<String> = pushed.iter().map(|f| f.to_string()).collect();
            format!("{} pushes {} and re-rolls the rest", n(*seat), faces.join(" "))
        }
        EventKind::Passed { seat } => format!("{} passes", n(*seat)),
        // The hand games' challenge is lifting the passed cup, not a call on a bid.
        EventKind::DudoCalled { seat, target } if game.is_some() => {
            format!("{} doubts {}'s claim and lifts the cup", n(*seat), n(*target))
        }
        EventKind::DudoCalled { seat, target } => {
            format!("{} calls Dudo on {}", n(*seat), n(*target))
        }
        EventKind::CalzaCalled { seat } => format!("{} calls Calza", n(*seat)),
        EventKind::DiceRevealed { dice, .. } => {
            let parts: Vec<String> = dice
                .iter()
                .enumerate()
                .filter(|(_, d)| !d.is_empty())
                .map(|(s, d)| {
                    let faces: Vec<String> = d.iter().map(|f| f.to_string()).collect();
                    format!("{} [{}]", n(s), faces.join(" "))
                })
                .collect();
            format!("Cups up: {}", parts.join(", "))
        }
        EventKind::RoundSettled { showdown, winner, loser } => match showdown {
            Showdown::DudoOnBid { bid, actual } => format!(
                "The bid was {bid} and {}: {} wins the challenge, {} loses it",
                there_were(*actual),
                n(*winner),
                n(*loser)
            ),
            Showdown::DudoOnPass { pass_was_true } => format!(
                "The pass was {}: {} wins the challenge, {} loses it",
                if *pass_was_true { "true" } else { "false" },
                n(*winner),
                n(*loser)
            ),
            Showdown::GuessesChecked { bid, actual } => {
                format!("Everyone else watches: the last guess {bid} meets {actual} on the table")
            }
            Showdown::Calza { bid, actual } => {
                if bid.quantity == *actual {
                    format!("Exactly {bid}: {}'s calza was right", n(*winner))
                } else {
                    format!(
                        "The bid was {bid} and {}, not exactly: {}'s calza was wrong",
                        there_were(*actual),
                        n(*loser)
                    )
                }
            }
        },
        EventKind::DiceLost { seat, count, left } => {
            format!("{} loses {} ({} left)", n(*seat), plural(*count, "die", "dice"), left)
        }
        EventKind::DiceWon { seat, count: 0, now } => {
            format!("{} already holds the most dice allowed ({now}) and wins none", n(*seat))
        }
        EventKind::DiceWon { seat, count, now } => {
            format!("{} wins {} back (now {})", n(*seat), plural(*count, "die", "dice"), now)
        }
        EventKind::DiceGiven { from, to, count } => {
            format!("{} gives {} to {}", n(*from), plural(*count, "die", "dice"), n(*to))
        }
        EventKind::Watched { seat } => format!("{} watches", n(*seat)),
        EventKind::Scored { seat, points, total, discarded } => {
            if *discarded {
                format!("{} would score {points:+} but that passes the target: discarded ({total})", n(*seat))
            } else {
                format!("{} scores {points:+} ({total})", n(*seat))
            }
        }
        EventKind::Paid { from, to, amount } => format!("{} pays {} {amount}", n(*from), n(*to)),
        EventKind::Drank { seat, drinks, total } => {
            format!("{} drinks {} ({total} so far)", n(*seat), plural(*drinks, "drink", "drinks"))
        }
        EventKind::Eliminated { seat, place } => {
            format!("{} is out of the game, finishing {}", n(*seat), place_text(*place))
        }
        EventKind::SeatLeft { seat, place, starter, .. } => format!(
            "{} leaves the game, finishing {}; {} starts the round",
            n(*seat),
            place_text(*place),
            n(*starter)
        ),
        EventKind::ResultsTable { rows } => {
            let parts: Vec<String> = rows
                .iter()
                .map(|r| {
                    format!(
                        "{} {} ({} there, {})",
                        n(r.seat),
                        r.bid,
                        r.actual,
                        if r.was_true { "true" } else { "false" }
                    )
                })
                .collect();
            format!("Results: {}", parts.join("; "))
        }
        EventKind::HandStarted { hand, starter } => {
            format!("Hand {hand}: {} takes the cup and rolls", n(*starter))
        }
        EventKind::Accepted { seat } => format!("{} takes the cup", n(*seat)),
        EventKind::HandRolled { seat, count } => {
            format!("{} rolls {}", n(*seat), plural(*count as u64, "die", "dice"))
        }
        EventKind::HandSeen { seat, dice } => format!("{} sees {} under the cup", n(*seat), faces(dice)),
        EventKind::DiceShown { seat, dice } => {
            let shown: Vec<u8> = dice.iter().map(|d| d.1).collect();
            format!("{} shows {}", n(*seat), faces(&shown))
        }
        EventKind::Claimed { seat, spoken, claim } => {
            if spoken == claim {
                format!("{} passes the cup: \"{}\"", n(*seat), hand(claim))
            } else {
                format!(
                    "{} passes the cup: \"{}\", an undercall taken as better: {}",
                    n(*seat),
                    hand(spoken),
                    hand(claim)
                )
            }
        }
        EventKind::HandRevealed { dice } => format!("The cup is lifted: {}", faces(dice)),
        EventKind::ChallengeSettled { claim, hand: h, winner, loser } => format!(
            "The claim was {} and the hand is {}: {} wins, {} loses",
            hand(claim),
            hand(h),
            n(*winner),
            n(*loser)
        ),
        EventKind::FiveAces { seat, made } => {
            if *made {
                format!("{} rolls the five aces! Nobody loses a life", n(*seat))
            } else {
                format!("{} misses the five aces", n(*seat))
            }
        }
        EventKind::CupCaught { seat, caught, drinks } => {
            format!("{} {} the cup: {} drinks", n(*seat), if *caught { "catches" } else { "misses" }, drinks)
        }
        EventKind::LifeLost { seat, lives } => {
            format!("{} loses a life ({} left)", n(*seat), plural(u64::from(*lives), "life", "lives"))
        }
        EventKind::DogsLife { seat, barked } => {
            if *barked {
                format!("{} barks like a dog and plays on with the dog's life", n(*seat))
            } else {
                format!("{} declines the dog's life", n(*seat))
            }
        }
        EventKind::GameOver { standings, points, money, drinks } => {
            let parts: Vec<String> = standings
                .iter()
                .enumerate()
                .map(|(i, &s)| {
                    let mut extra = Vec::new();
                    if points.iter().any(|&p| p != 0) {
                        extra.push(format!("{} points", points.get(s).copied().unwrap_or(0)));
                    }
                    if money.iter().any(|&m| m != 0) {
                        extra.push(format!("money {:+}", money.get(s).copied().unwrap_or(0)));
                    }
                    if drinks.iter().any(|&d| d != 0) {
                        extra.push(format!("{} drinks", drinks.get(s).copied().unwrap_or(0)));
                    }
                    let extra =
                        if extra.is_empty() { String::new() } else { format!(" ({})", extra.join(", ")) };
                    format!("{}. {}{extra}", i + 1, n(s))
                })
                .collect();
            match standings.first() {
                Some(&w) => format!("{} wins the game! Standings: {}", n(w), parts.join(", ")),
                None => "The game is over".to_string(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["Ann".into(), "Ben".into()]
    }

    #[test]
    fn a_count_of_one_is_singular() {
        let settled = |actual| EventKind::RoundSettled {
            showdown: Showdown::DudoOnBid { bid: Bid::new(3, 6), actual },
            winner: 0,
            loser: 1,
        };
        let text = describe(&settled(1), &names());
        assert!(text.starts_with("The bid was 3 sixes and there was 1:"), "{text}");
        assert!(describe(&settled(3), &names()).contains("and there were 3:"));
        assert!(describe(&settled(0), &names()).contains("and there were none:"));
    }

    #[test]
    fn a_calza_is_told_as_a_calza_right_or_wrong() {
        let settled = |actual| EventKind::RoundSettled {
            showdown: Showdown::Calza { bid: Bid::new(3, 5), actual },
            winner: 0,
            loser: 0,
        };
        assert_eq!(describe(&settled(3), &names()), "Exactly 3 fives: Ann's calza was right");
        assert_eq!(
            describe(&settled(4), &names()),
            "The bid was 3 fives and there were 4, not exactly: Ann's calza was wrong"
        );
    }

    #[test]
    fn an_exact_call_says_whose_bid_it_is_on() {
        let mut narrator = Narrator::default();
        narrator.line(&EventKind::BidMade { seat: 1, bid: Bid::new(3, 5) }, &names(), None);
        let text = narrator.line(&EventKind::CalzaCalled { seat: 0 }, &names(), None);
        assert_eq!(text, "Ann calls Calza on Ben's bid of 3 fives");
        assert_eq!(exact_call_on(0, None, "Jonti", &names()), "Ann calls Jonti");
    }

    #[test]
    fn a_table_says_events_in_its_games_own_words_and_a_seats_dice_to_it() {
        let said = |preset: &str, events: &[Event]| {
            let mut narrator = Narrator::for_rules(&crate::presets::by_name(preset).unwrap());
            events.iter().map(|e| narrator.line_for(e, &names())).collect::<Vec<String>>()
        };
        let everyone = |kind| Event { audience: Audience::Everyone, kind };
        let bid = everyone(EventKind::BidMade { seat: 1, bid: Bid::new(3, 5) });
        let call = everyone(EventKind::CalzaCalled { seat: 0 });
        assert_eq!(said("perudo-jonti", &[bid.clone(), call])[1], "Ann calls Jonti on Ben's bid of 3 fives");
        let doubt = everyone(EventKind::DudoCalled { seat: 0, target: 1 });
        assert_eq!(said("points", &[bid, doubt.clone()]), ["Ben guesses 3 fives", "Ann doubts Ben's guess"]);
        // The hand games' challenge lifts the passed cup.
        assert_eq!(said("poker-dice", &[doubt]), ["Ann doubts Ben's claim and lifts the cup"]);
        let rolled =
            |audience| Event { audience, kind: EventKind::DiceRolled { seat: 1, dice: vec![Some(3), None] } };
        let own = rolled(Audience::Seats { seats: crate::event::SeatSet::single(1) });
        let truth = rolled(Audience::Hidden { seats: crate::event::SeatSet::single(0) });
        assert_eq!(said("fibbing", &[own, truth]), ["Your dice: 3 ?", "Ben rolls 3 ?"]);
    }
}
