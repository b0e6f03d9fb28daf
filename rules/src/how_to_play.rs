//! A rule set in players' words: the short "how to play" a table shows beside its rules (the
//! aim, what a bid must beat, wilds, the calls and what a lost one costs, palifico, the end),
//! made from the same fields the engine plays by, so it never says what the table does not do.
//!
//! Each note is a topic and a sentence or two; clients show them as they are. The full
//! settings, by their paths, stay the reference (`docs/rules.md`).

use crate::game::exact_call_name;
use crate::ruleset::*;

/// One topic of the how-to-play: "Wilds", "Ones are wild: they count as every face…".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleNote {
    pub topic: &'static str,
    pub text: String,
}

fn note(topic: &'static str, text: impl Into<String>) -> RuleNote {
    RuleNote { topic, text: text.into() }
}

/// The how-to-play of `rules`, topic by topic, in the order a newcomer needs them.
pub fn how_to_play(rules: &RuleSet) -> Vec<RuleNote> {
    match rules.family {
        Family::CommonHand => common_hand(rules),
        _ => one_cup(rules),
    }
}

fn dice(n: u32) -> String {
    if n == 1 { "one die".into() } else { format!("{n} dice") }
}

fn common_hand(r: &RuleSet) -> Vec<RuleNote> {
    let points = matches!(r.game_end, GameEnd::Points(_));
    let word = if points { "guess" } else { "bid" };
    let mut out = vec![note(
        "The aim",
        format!(
            "Everyone rolls {} under a cup and sees only their own. In turn, each {} how many dice of a face lie on the whole table, counting everyone's.",
            dice(u32::from(r.dice.start)),
            if points { "guesses" } else { "bids on" }
        ),
    )];
    let raise = match r.bidding {
        BiddingSystem::MoreOfSameFaceOrHigherFace => {
            "more dice of the same face, or any number of a higher face"
        }
        BiddingSystem::MoreDiceOrHigherFace => "more dice of any face, or as many dice of a higher face",
        BiddingSystem::MoreDice => "more dice, of any face",
        BiddingSystem::AboveHighestNumber => {
            "a number or a face above the higher of the last bid's two numbers"
        }
        BiddingSystem::HigherProduct => "a higher number times face than the last bid",
        BiddingSystem::NeitherFalls => "neither fewer dice nor a lower face, and more of one of them",
    };
    out.push(note("Raising", format!("Each {word} must beat the last: {raise}. Jumping ahead is allowed.")));
    out.push(note("Wilds", wilds(r)));
    out.push(note("Calling", calling(r, points)));
    if !points {
        out.push(note("A lost call", lost_call(r)));
    }
    if r.exact_call.who != ExactCaller::Off {
        out.push(note("Calling it exact", exact(r)));
    }
    if r.stairs == Stairs::On {
        out.push(note(
            "Stairs",
            "Dice that run 1, 2, 3… up to how many you hold, each face once (1-2-3 with three dice), are a stair: at a count it is that many ones.",
        ));
    }
    if r.fibbing.hide_percent > 0 || r.fibbing.misshow_percent > 0 {
        out.push(note("Your own dice", fibbing(r.fibbing)));
    }
    if r.palifico.trigger != PalificoTrigger::Off {
        out.push(note("Palifico", palifico(r)));
    }
    if r.push.dice != PushDice::Off {
        out.push(note(
            "Showing dice",
            "With a bid you may show some of your dice, leave them in view, and re-roll the rest under the cup.",
        ));
    }
    if r.pass.claim != PassClaim::Off {
        let claim = match r.pass.claim {
            PassClaim::AllDifferent => "no two of your dice show the same face",
            _ => "all your dice show the same face",
        };
        out.push(note(
            "Passing",
            format!(
                "Instead of bidding you may pass, with at least {}: a pass claims {claim} (wilds do not help), and it can be challenged like a bid.",
                dice(u32::from(r.pass.min_dice))
            ),
        ));
    }
    if !points && r.wager.mode != WagerMode::Off {
        out.push(note("Money", wager(r.wager)));
    }
    if !points && r.drinks.tally == DrinksTally::On {
        out.push(note("Drinks", drinks(r)));
    }
    out.push(note("The end", game_end(r)));
    out
}

/// What the fibbing dice do to what you see of your own roll.
fn fibbing(f: Fibbing) -> String {
    let hide = (f.hide_percent > 0)
        .then(|| format!("each die has a {}% chance of being hidden from you (you see ?)", f.hide_percent));
    let misshow = (f.misshow_percent > 0).then(|| {
        format!("each die you see a {}% chance of showing you a face it does not have", f.misshow_percent)
    });
    let chances: Vec<String> = hide.into_iter().chain(misshow).collect();
    format!(
        "When you roll, {}. Nobody is told which; the reveal shows the dice as they are.",
        chances.join(", and ")
    )
}

fn wager(w: Wager) -> String {
    match w.mode {
        WagerMode::WinnerTakesAll => {
            format!(
                "Everyone stakes {}: when the game ends, each of the others pays it to the winner.",
                w.stake
            )
        }
        _ => format!(
            "After each call, the round's loser pays its winner {}; everyone else breaks even.",
            w.stake
        ),
    }
}

/// The drinking game's tally, as the drinks fall.
fn drinks(r: &RuleSet) -> String {
    let d = r.drinks;
    let n = |k: u8| if k == 1 { "a drink".to_string() } else { format!("{k} drinks") };
    let mut parts = vec![format!("Losing a call costs {}", n(d.per_lost_round))];
    if d.by_difference == DrinksByDifference::On {
        parts.push("plus the difference between the bid and the count".into());
    }
    if d.per_die_lost > 0 {
        parts.push(format!("and {} for each die lost", n(d.per_die_lost)));
    }
    let mut text = parts.join(", ") + ".";
    if r.challenges.who == Challenger::Anyone && d.failed_out_of_turn_multiplier > 1 {
        text +=
            &format!(" A wrong call out of turn drinks {} times as much.", d.failed_out_of_turn_multiplier);
    }
    if r.exact_call.who != ExactCaller::Off && d.spot_on == SpotOnDrinks::OthersDrinkFailedDoubles {
        text += " A right exact call makes everyone else drink; a wrong one, the caller drinks double.";
    }
    if d.on_elimination > 0 {
        text += &format!(" Going out costs {}", n(d.on_elimination));
        text += &if d.each_round_while_out > 0 {
            format!(", and {} each round after.", n(d.each_round_while_out))
        } else {
            ".".into()
        };
    } else if d.each_round_while_out > 0 {
        text += &format!(" Out of the game, you drink {} each round.", n(d.each_round_while_out));
    }
    text
}

fn wilds(r: &RuleSet) -> String {
    let wild = match r.wilds {
        Wilds::None => return "No face is wild: only the face bid counts.".into(),
        Wilds::Ones => "Ones are wild: they count as every face.".to_string(),
        Wilds::HighestFace => format!("{}s are wild: they count as every face.", r.dice.faces),
        Wilds::OnesUnlessOpenedOnOnes => {
            "Ones are wild and count as every face, unless the round opens on ones.".to_string()
        }
    };
    let bids = match r.wild_bids {
        WildBids::NeverBid => " Nobody bids on the wild face itself.",
        WildBids::Plain => " The wild face is bid like any other.",
        WildBids::HalveAndDoublePlusOne => {
            " A bid may switch to the wild face with half as many dice (rounded up), and back with twice as many plus one."
        }
        WildBids::HalveAndDoubleOrLastPlusOne => {
            " A bid may switch to the wild face with half as many dice (rounded up), and back with twice as many, or one more than the round's last such bid."
        }
    };
    let opening = if r.opening_on_wilds == OpeningOnWilds::Forbidden && r.wild_bids != WildBids::NeverBid {
        " A round may not open on the wild face."
    } else {
        ""
    };
    format!("{wild}{bids}{opening}")
}

fn calling(r: &RuleSet, points: bool) -> String {
    let who = match r.challenges.who {
        Challenger::NextPlayer => "the next player",
        Challenger::Anyone => "anyone, in turn or not,",
    };
    if points {
        return format!(
            "Rather than guess higher, {who} may doubt the last guess, or watch (sit the round out). A guess that holds scores number times face; a wrong one loses as much; a right doubt gains the higher of the two."
        );
    }
    format!(
        "Rather than bid higher, {who} may call dudo on the last bid: every cup is lifted and the face is counted. If there are at least as many as bid, the caller was wrong; if fewer, the bidder was."
    )
}

fn lost_call(r: &RuleSet) -> String {
    let n = u32::from(r.dice_lost_on_dudo.max(1));
    let double = r.challenges.who == Challenger::Anyone
        && r.challenges.failed_out_of_turn == OutOfTurnPenalty::Double
        && matches!(r.dudo_penalty, DudoPenalty::LoseDice | DudoPenalty::LoseDifference);
    let cost = lost_call_cost(r, n);
    if double { format!("{cost} A wrong call made out of turn costs twice as many.") } else { cost }
}

fn lost_call_cost(r: &RuleSet, n: u32) -> String {
    match r.dudo_penalty {
        DudoPenalty::LoseDice => {
            format!("Whoever was wrong loses {}. Lose them all and you are out.", dice(n))
        }
        DudoPenalty::LoseDifference => {
            "Whoever was wrong loses as many dice as the bid was off by, at least one.".into()
        }
        DudoPenalty::GiveToWinner => format!("Whoever was wrong gives {} to the one who was right.", dice(n)),
        DudoPenalty::Snyd => format!(
            "Everyone but whoever was wrong puts away {}: the first with none left has done best, and the last holding dice loses.",
            dice(n)
        ),
        DudoPenalty::NoDice => "Nobody loses dice on a call.".into(),
    }
}

fn exact(r: &RuleSet) -> String {
    let name = match exact_call_name(r) {
        "jonti" => "Jonti",
        "exact" => "Exact",
        _ => "Calza",
    };
    let who = match r.exact_call.who {
        ExactCaller::OnTurn => "The player to move",
        _ => "Anyone but the bidder and the next player",
    };
    let when = if r.exact_call.min_players > 2 {
        format!(", while at least {} players are in,", r.exact_call.min_players)
    } else {
        String::new()
    };
    let gain = match r.exact_call.reward {
        ExactReward::WinDice => format!(
            "wins {} back (up to {})",
            dice(u32::from(r.exact_call.dice_won)),
            match r.exact_call.cap {
                ExactCap::StartingDice => "the dice they started with".to_string(),
                ExactCap::MaxDice => dice(u32::from(r.dice.max)),
            }
        ),
        ExactReward::OthersLoseDice => {
            format!("makes everyone else lose {}", dice(u32::from(r.exact_call.dice_won)))
        }
    };
    let once = if r.exact_call.limit == ExactLimit::OncePerGame {
        " Each player may call it once a game."
    } else {
        ""
    };
    let palifico =
        if r.exact_call.in_palifico == InPalifico::Forbidden && r.palifico.trigger != PalificoTrigger::Off {
            " Not in a palifico round."
        } else {
            ""
        };
    format!(
        "{who}{when} may call {name}: the bid is exactly right. Right, the caller {gain}; wrong, the caller loses {}.{once}{palifico}",
        dice(u32::from(r.exact_call.dice_lost))
    )
}

fn palifico(r: &RuleSet) -> String {
    let when = match r.palifico.trigger {
        PalificoTrigger::EveryTimeOnOneDie => "Each time a player is down to one die",
        _ => "The first time a player is down to one die",
    };
    let players = if r.palifico.min_players > 2 {
        format!(" (while at least {} players are in)", r.palifico.min_players)
    } else {
        String::new()
    };
    let opener = match r.palifico.opener {
        PalificoOpener::OneDiePlayer => " they open it, and",
        PalificoOpener::UsualStarter => "",
    };
    let face = match r.palifico.face_change {
        PalificoFaceChange::Locked => "the opening bid's face holds for the round: only the number goes up",
        PalificoFaceChange::ExPalificoMayRaise => {
            "the opening bid's face holds for the round, except for a player who has had a palifico round before"
        }
        PalificoFaceChange::OneDiePlayersMayChange => {
            "the opening bid's face holds for the round, except for players down to one die"
        }
    };
    format!("{when}{players}, the next round is palifico:{opener} nothing is wild, and {face}.")
}

fn game_end(r: &RuleSet) -> String {
    match r.game_end {
        GameEnd::LastPlayerStanding if r.dudo_penalty == DudoPenalty::Snyd => {
            "The game ends when one player alone still holds dice: they lose.".into()
        }
        GameEnd::LastPlayerStanding => "The last player with dice wins.".into(),
        GameEnd::SingleRound => "One round decides the game.".into(),
        GameEnd::Rounds(n) => format!("The game lasts {n} rounds."),
        GameEnd::Points(n) => format!("The first to exactly {n} points wins; going past it does not count."),
    }
}

/// Poker dice, the Stanford game and Mexican: one cup passed round.
fn one_cup(r: &RuleSet) -> Vec<RuleNote> {
    let (n, faces) = match r.family {
        Family::PokerDice => (5, "poker dice (9, 10, jack, queen, king, ace)"),
        Family::Stanford => (6, "dice"),
        Family::Mexican => (3, "dice"),
        _ => (2, "dice"),
    };
    let mexican = matches!(r.family, Family::Mexican | Family::MexicanTwoDice);
    let hands = match r.family {
        Family::PokerDice => "Hands rank as in poker, without runs: five of a kind is best.",
        Family::Stanford => "More of a kind beats fewer; then the higher face.",
        Family::Mexican => "1-2-3 (Mexican) beats everything, then triples, then the highest dice first.",
        _ => "2-1 (Mexican) beats everything, then doubles, then the higher die first.",
    };
    let mut out = vec![
        note(
            "The aim",
            format!(
                "One cup of {n} {faces} goes round. Its holder rolls, looks, and passes it on with a claim of what is under it, true or not."
            ),
        ),
        note("Claims", format!("Each claim must beat the last. {hands}")),
        note(
            "Taking or lifting",
            "Offered the cup, take it (and roll again, or pass it straight on with a higher claim) or lift it. Lifted: a lie costs the one who claimed; the truth costs the one who lifted.",
        ),
    ];
    out.push(note(
        "What it costs",
        if mexican {
            format!(
                "Caught lying or lifting wrongly costs {} drinks; another roll costs {}. Fewest drinks wins.",
                r.hand.bluff_drinks, r.hand.reroll_drinks
            )
        } else {
            format!(
                "Everyone has {}; losing a challenge costs one. The last with a life wins.",
                crate::describe::plural(r.hand.lives, "life", "lives")
            )
        },
    ));
    if r.family == Family::PokerDice && r.hand.five_aces == FiveAces::On {
        out.push(note(
            "Five aces",
            "Take a claim of five aces and you must roll them within three tries, or lose a life.",
        ));
    }
    if !mexican && r.hand.dogs_life == DogsLife::Offered {
        out.push(note(
            "The dog's life",
            "The first player to lose their last life may bark like a dog to play on with one.",
        ));
    }
    if r.hand.show_dice == ShowDice::Allowed {
        out.push(note(
            "Dice in view",
            "You may leave dice outside the cup, in view of everyone, when you roll.",
        ));
    }
    if r.game_end != GameEnd::LastPlayerStanding {
        out.push(note("The end", game_end(r)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    /// Every preset has its aim first, says how it ends, and says each of its calls.
    #[test]
    fn every_preset_says_its_aim_calls_and_end() {
        for name in presets::NAMES {
            let rules = presets::by_name(name).unwrap();
            let notes = how_to_play(&rules);
            assert_eq!(notes.first().unwrap().topic, "The aim", "{name}");
            let has = |t: &str| notes.iter().any(|n| n.topic == t);
            // The one-cup games that end with the last life say so in what a challenge costs.
            let last_life =
                rules.family != Family::CommonHand && rules.game_end == GameEnd::LastPlayerStanding;
            assert!(has("The end") != last_life, "{name}");
            assert_eq!(has("Calling it exact"), rules.exact_call.who != ExactCaller::Off, "{name}");
            assert_eq!(has("Palifico"), rules.palifico.trigger != PalificoTrigger::Off, "{name}");
            assert!(notes.iter().all(|n| !n.text.contains('_')), "{name}: a setting's name in {notes:?}");
        }
    }

    #[test]
    fn the_fibbing_table_in_words() {
        let notes = how_to_play(&presets::fibbing());
        let text = |t: &str| notes.iter().find(|n| n.topic == t).unwrap().text.clone();
        assert!(text("Wilds").starts_with("Ones are wild"));
        assert!(text("Wilds").contains("may not open on the wild face"));
        assert!(text("Calling it exact").contains("Calza"));
        assert!(text("Calling it exact").contains("at least 3 players"));
        assert!(text("A lost call").contains("loses one die"));
        assert_eq!(text("The end"), "The last player with dice wins.");
    }

    #[test]
    fn the_house_rules_say_exact_once_a_game_and_passing() {
        let notes = how_to_play(&presets::house());
        let text = |t: &str| notes.iter().find(|n| n.topic == t).unwrap().text.clone();
        assert!(text("Calling it exact").contains("Exact"));
        assert!(text("Calling it exact").contains("once a game"));
        assert!(text("Passing").contains("same face"));
        assert!(text("Showing dice").contains("re-roll"));
    }

    /// What changes play is told: stairs, dice you may see wrongly, money, drinks, a call out
    /// of turn that costs double.
    #[test]
    fn every_setting_that_changes_play_is_told() {
        let mut rules = presets::fibbing();
        rules.stairs = Stairs::On;
        rules.fibbing = Fibbing { hide_percent: 10, misshow_percent: 5 };
        rules.wager = Wager { mode: WagerMode::LoserPaysWinnerEachRound, stake: 3 };
        rules.drinks.tally = DrinksTally::On;
        rules.challenges =
            Challenges { who: Challenger::Anyone, failed_out_of_turn: OutOfTurnPenalty::Double };
        let notes = how_to_play(&rules);
        let text = |t: &str| notes.iter().find(|n| n.topic == t).map(|n| n.text.clone()).unwrap_or_default();
        assert!(text("Stairs").contains("that many ones"), "{notes:?}");
        assert!(text("Your own dice").contains("10% chance of being hidden"), "{notes:?}");
        assert!(text("Your own dice").contains("5% chance of showing you a face"), "{notes:?}");
        assert!(text("Money").contains("pays its winner 3"), "{notes:?}");
        assert!(text("Drinks").starts_with("Losing a call costs a drink"), "{notes:?}");
        assert!(text("Drinks").contains("out of turn drinks 2 times"), "{notes:?}");
        assert!(text("A lost call").contains("out of turn costs twice"), "{notes:?}");
        assert!(text("Calling it exact").contains("up to 5 dice"), "{notes:?}");
        // None of them where they are off.
        let plain = how_to_play(&presets::fibbing());
        assert!(!plain.iter().any(|n| ["Stairs", "Your own dice", "Money", "Drinks"].contains(&n.topic)));
    }
}
