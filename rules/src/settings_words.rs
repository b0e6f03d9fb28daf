//! Rule settings in players' words: what the table says when its host changes the rules
//! ("dice each player starts with: now 3, was 5"), not the settings' paths.
//!
//! The words of each setting are listed here once, by the path `--rule` and
//! `ChangeSettings` take; a setting without words (one added later) is said by its path, so
//! a change is never silent.

use serde_json::Value;

use crate::ruleset::RuleSet;

/// Each setting's words, by its path.
const WORDS: &[(&str, &str)] = &[
    ("name", "the rules' name"),
    ("family", "the game"),
    ("players.min", "the fewest players"),
    ("players.max", "the most players"),
    ("dice.start", "dice each player starts with"),
    ("dice.max", "the most dice a player may hold"),
    ("dice.faces", "faces on each die"),
    ("first_starter", "who starts the first round"),
    ("wilds", "wild dice"),
    ("wild_bids", "bids on wilds"),
    ("opening_on_wilds", "opening a round on wilds"),
    ("bidding", "how a bid must go up"),
    ("dudo_penalty", "what a lost challenge costs"),
    ("dice_lost_on_dudo", "dice lost on a lost challenge"),
    ("exact_call.who", "who may call exact"),
    ("exact_call.min_players", "the fewest players for an exact call"),
    ("exact_call.in_palifico", "an exact call in a palifico round"),
    ("exact_call.limit", "how often a player may call exact"),
    ("exact_call.dice_won", "dice won by a right exact call"),
    ("exact_call.dice_lost", "dice lost by a wrong exact call"),
    ("exact_call.cap", "the most dice a right exact call brings a player to"),
    ("exact_call.reward", "what a right exact call brings"),
    ("next_starter", "who starts the next round"),
    ("palifico.trigger", "palifico rounds"),
    ("palifico.min_players", "the fewest players for a palifico round"),
    ("palifico.opener", "who opens a palifico round"),
    ("palifico.face_change", "changing the face in a palifico round"),
    ("push.dice", "pushing dice"),
    ("push.limit", "how often dice may be pushed"),
    ("pass.claim", "passing"),
    ("pass.limit", "how often a player may pass"),
    ("pass.challenge", "which pass may be challenged"),
    ("pass.min_dice", "the fewest dice a player may pass with"),
    ("losers_see_dice", "what players out of the game see"),
    ("results_table", "the results table"),
    ("fibbing.hide_percent", "the chance a die is hidden, in percent"),
    ("fibbing.misshow_percent", "the chance a die is shown wrong, in percent"),
    ("game_end", "when the game ends"),
    ("game_end.rounds", "rounds in the game"),
    ("game_end.points", "points to win"),
    ("challenges.who", "who may challenge"),
    ("challenges.failed_out_of_turn", "the cost of a failed challenge out of turn"),
    ("stairs", "the stairs claim"),
    ("wager.mode", "the wager"),
    ("wager.stake", "the stake"),
    ("drinks.tally", "the drinks tally"),
    ("drinks.per_lost_round", "drinks per round lost"),
    ("drinks.per_die_lost", "drinks per die lost"),
    ("drinks.by_difference", "drinks by how far off a claim was"),
    ("drinks.on_elimination", "drinks on going out"),
    ("drinks.each_round_while_out", "drinks each round while out"),
    ("drinks.failed_out_of_turn_multiplier", "how much more a failed call out of turn drinks"),
    ("drinks.spot_on", "drinks on a spot-on call"),
    ("points.wrong_watcher", "what a wrong watcher loses"),
    ("points.other_guesses", "the other players' guesses"),
    ("hand.lives", "lives each player starts with"),
    ("hand.undercall", "a claim below the last one"),
    ("hand.five_aces", "five aces"),
    ("hand.dogs_life", "the dog's life"),
    ("hand.show_dice", "showing dice"),
    ("hand.reroll_drinks", "drinks for a reroll"),
    ("hand.bluff_drinks", "drinks for a caught bluff"),
    ("hand.betty_ford_drinks", "the Betty Ford drinks"),
    ("hand.catch_percent", "the chance of catching the cup, in percent"),
];

/// The most changes one line lists; the rest are counted.
const MOST_LISTED: usize = 8;

/// What changed from `before` to `after`, in words, a change each: "dice each player starts
/// with: now 3, was 5". At most [`MOST_LISTED`], then "and 3 more settings".
pub fn changes(before: &RuleSet, after: &RuleSet) -> Vec<String> {
    let (mut old, mut new) = (Vec::new(), Vec::new());
    if let (Ok(b), Ok(a)) = (serde_json::to_value(before), serde_json::to_value(after)) {
        leaves(&b, "", &mut old);
        leaves(&a, "", &mut new);
    }
    let was = |path: &str| old.iter().find(|(p, _)| p == path).map(|(_, v)| v.as_str());
    let mut said: Vec<String> = Vec::new();
    for (path, value) in &new {
        match was(path) {
            Some(w) if w == value => {}
            Some(w) => said.push(format!("{}: now {value}, was {w}", words_of(path))),
            // A setting with data where the section was a plain choice ("when the game ends":
            // after 3 rounds, was the last player standing).
            // A plain choice where the section had data: said below, the other way round.
            None if old
                .iter()
                .any(|(p, _)| p.strip_prefix(path.as_str()).is_some_and(|r| r.starts_with('.'))) => {}
            None => {
                let section = path.split('.').next().unwrap_or(path);
                let before = was(section).map(|w| format!(", was {w}")).unwrap_or_default();
                said.push(format!("{}: now {value}{before}", words_of(path)));
            }
        }
    }
    // The other way round: a plain choice where the section had data.
    for (path, value) in &old {
        if !new.iter().any(|(p, _)| p == path || p.split('.').next() == Some(path.as_str()))
            && let Some((section, _)) = path.split_once('.')
            && let Some(now) = new.iter().find(|(p, _)| p == section).map(|(_, v)| v)
        {
            said.push(format!("{}: now {now}, was {} {value}", words_of(section), words_of(path)));
        }
    }
    said.sort();
    said.dedup();
    if said.len() > MOST_LISTED {
        let more = said.len() - MOST_LISTED;
        said.truncate(MOST_LISTED);
        said.push(format!("and {more} more {}", if more == 1 { "setting" } else { "settings" }));
    }
    said
}

/// A setting's words; its path when it has none.
pub fn words_of(path: &str) -> &str {
    WORDS.iter().find(|(p, _)| *p == path).map_or(path, |(_, w)| w)
}

/// Every setting's path and value in words ("ones unless opened on ones", "3", "on").
fn leaves(value: &Value, path: &str, out: &mut Vec<(String, String)>) {
    let at = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                leaves(inner, &at(key), out);
            }
        }
        Value::String(s) => out.push((path.to_string(), s.replace('_', " "))),
        Value::Bool(b) => out.push((path.to_string(), if *b { "on" } else { "off" }.to_string())),
        Value::Null => out.push((path.to_string(), "none".to_string())),
        other => out.push((path.to_string(), other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn a_change_is_said_in_words_with_what_it_was() {
        let before = presets::fibbing();
        let after = presets::with_setting(before.clone(), "dice.start", "3").unwrap();
        let said = changes(&before, &after);
        assert!(said.contains(&"dice each player starts with: now 3, was 5".to_string()), "{said:?}");
        assert!(changes(&before, &before).is_empty());
        let wild = presets::with_setting(before.clone(), "wilds", "none").unwrap();
        assert_eq!(changes(&before, &wild), vec!["wild dice: now none, was ones"]);
    }

    #[test]
    fn a_game_end_with_data_is_said_both_ways() {
        let before = presets::fibbing();
        let after = presets::with_setting(before.clone(), "game_end.rounds", "3").unwrap();
        let said = changes(&before, &after);
        assert_eq!(said, vec!["rounds in the game: now 3, was last player standing"], "{said:?}");
        let back = changes(&after, &before);
        assert_eq!(back, vec!["when the game ends: now last player standing, was rounds in the game 3"]);
    }

    #[test]
    fn every_setting_has_words_and_a_long_list_is_cut() {
        let mut paths = Vec::new();
        if let Ok(v) = serde_json::to_value(presets::fibbing()) {
            leaves(&v, "", &mut paths);
        }
        for (path, _) in &paths {
            assert_ne!(words_of(path), path.as_str(), "{path} has no words");
        }
        let before = presets::fibbing();
        let after = presets::mexican(crate::ruleset::Family::Mexican, "mexican");
        let said = changes(&before, &after);
        assert!(said.len() <= MOST_LISTED + 1, "{said:?}");
    }
}
