//! The table from one seat, as lines: round, wilds, palifico, every seat in play order with
//! its marks and dice, the bid, the tallies the rules keep, and the cup of the individual-hand
//! games.

use super::*;
use dudo_rules::describe::plural;

/// Marks beside a seat: the host, the starter of the round.
pub(super) fn marks(style: Style, seat: usize, host: usize, starter: usize) -> String {
    let mut m = String::new();
    if seat == host {
        m.push_str(if style.glyphs { " ★host" } else { " (host)" });
    }
    if seat == starter {
        m.push_str(if style.glyphs { " ⚑started" } else { " (started)" });
    }
    m
}

/// How wide a column of seat numbers is, for `seats` seats.
pub(super) fn seat_width(seats: usize) -> usize {
    seats.saturating_sub(1).to_string().len()
}

/// The table from one seat: round, wilds, palifico, every seat in play order with its number
/// (the one `remove SEAT` takes) and the turn marked, dice counts, your dice, the bid, and
/// the tallies the rules keep.
pub fn status(view: &View, rules: &RuleSet, players: &[String], host: usize, style: Style) -> Vec<String> {
    let me = view.seat;
    let names = names_for(players, me);
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(4);
    let faces = rules.dice.faces;
    if let Some(game) = rules.family.hand_game() {
        return hand_status(view, rules, &names, host, game, style);
    }
    let dot = if style.glyphs { " · " } else { " - " };
    let mut head = format!("Round {}", view.round);
    head.push_str(&match view.wild {
        Some(w) => format!("{dot}{} wild", dudo_rules::bid::face_name(w, true)),
        None => format!("{dot}no wilds"),
    });
    if !view.palifico.is_empty() {
        let who: Vec<&str> = view.palifico.iter().filter_map(|&s| names.get(s).map(String::as_str)).collect();
        head.push_str(&style.yellow(&format!("{dot}PALIFICO ({})", who.join(", "))));
    }
    let mut lines = vec![format!("{}  {}", style.bold(&head), style.dim(&format!("[{}]", rules.name)))];
    for (s, p) in view.players.iter().enumerate() {
        let turn = if view.turn != Some(s) {
            " ".into()
        } else if style.glyphs {
            style.cyan("▶")
        } else {
            ">".into()
        };
        let who = format!("{:<width$}", names.get(s).cloned().unwrap_or_default());
        let who = if Some(s) == me { style.bold(&who) } else { who };
        let detail = if let Some(place) = p.place {
            style.dim(&format!("out ({})", place_text(place)))
        } else {
            let dice = if Some(s) == me {
                style.dice(&view.my_dice, faces, view.wild)
            } else if let Some(all) = &view.all_dice {
                all.get(s).map(|d| style.dice(&known(d), faces, view.wild)).unwrap_or_default()
            } else {
                String::new()
            };
            let pushed = if p.pushed.is_empty() {
                String::new()
            } else {
                format!("  pushed {}", style.dice(&known(&p.pushed), faces, view.wild))
            };
            let claim = view
                .claims
                .iter()
                .rev()
                .find(|c| c.seat == s)
                .map(|c| match c.kind {
                    dudo_rules::game::ClaimKind::Bid(b) | dudo_rules::game::ClaimKind::PushBid(b) => {
                        format!("  bid {}", style.bid(b, faces))
                    }
                    dudo_rules::game::ClaimKind::Pass => "  passed".into(),
                })
                .unwrap_or_default();
            let watching = if p.watching { "  watching" } else { "" };
            format!("{:<7}  {dice}{pushed}{claim}{watching}", plural_dice(p.dice))
        };
        // As wide as the widest marks, " (host) (started)": the columns after it line up.
        let mark = format!("{:<17}", marks(style, s, host, view.starter));
        let number = seat_width(view.players.len());
        lines.push(format!("  {turn} {s:>number$} {who}{}  {detail}", style.dim(&mark)));
    }
    let arrow = if style.glyphs {
        "play passes down the list ↓ and round to the top"
    } else {
        "play passes down the list"
    };
    let bid = match view.current_bid {
        Some((s, b)) => {
            format!("Bid to beat: {} by {}", style.bold(&style.bid(b, faces)), names[s.min(names.len() - 1)])
        }
        None => "No bid yet this round.".into(),
    };
    lines.push(format!("  {}  {}", style.dim(arrow), bid));
    lines.extend(ledger(view, rules, &names));
    lines
}

pub(super) fn plural_dice(n: u16) -> String {
    if n == 1 { "1 die".into() } else { format!("{n} dice") }
}

/// Points, money and drinks, when the rules keep them.
pub(super) fn ledger(view: &View, rules: &RuleSet, names: &[String]) -> Vec<String> {
    let tally = |value: &dyn Fn(&PlayerView) -> String| -> String {
        let parts: Vec<String> =
            view.players.iter().enumerate().map(|(s, p)| format!("{} {}", names[s], value(p))).collect();
        parts.join(", ")
    };
    let mut lines = Vec::new();
    if matches!(rules.game_end, GameEnd::Points(_)) {
        lines.push(format!("  Points: {}", tally(&|p| p.score.to_string())));
    }
    if rules.wager.mode != WagerMode::Off {
        lines.push(format!("  Money: {}", tally(&|p| format!("{:+}", p.money))));
    }
    if rules.drinks.tally == DrinksTally::On {
        lines.push(format!("  Drinks: {}", tally(&|p| p.drinks.to_string())));
    }
    lines
}

/// The cup of an individual-hand game.
pub(super) fn hand_status(
    view: &View,
    rules: &RuleSet,
    names: &[String],
    host: usize,
    game: HandGame,
    style: Style,
) -> Vec<String> {
    let mut lines = vec![format!(
        "{}  {}",
        style.bold(&format!("Hand {}", view.round)),
        style.dim(&format!("[{}]", rules.name))
    )];
    let drinks = matches!(rules.family, Family::Mexican | Family::MexicanTwoDice);
    let holder = view.hand.as_ref().map(|h| h.holder);
    for (s, p) in view.players.iter().enumerate() {
        let turn = match (view.turn == Some(s), style.glyphs) {
            (false, _) => " ".to_string(),
            (true, true) => style.cyan("▶"),
            (true, false) => ">".to_string(),
        };
        let tally = if let Some(place) = p.place {
            style.dim(&format!("out ({})", place_text(place)))
        } else if drinks {
            let (drinks, lives) = (plural(p.drinks, "drink", "drinks"), plural(p.lives, "life", "lives"));
            format!("{drinks}, {lives}")
        } else {
            plural(p.lives, "life", "lives")
        };
        let cup = if holder == Some(s) { "  holds the cup" } else { "" };
        let number = seat_width(view.players.len());
        lines.push(format!(
            "  {turn} {s:>number$} {}  {tally}{cup}{}",
            names.get(s).cloned().unwrap_or_default(),
            style.dim(&marks(style, s, host, view.starter))
        ));
    }
    if let Some(hand) = &view.hand {
        let dice: Vec<String> = hand
            .dice
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let face = d.map_or('?', |f| game.face_symbol(f));
                let shown = if hand.shown.get(i).copied().unwrap_or(false) { "*" } else { "" };
                format!("{}:{face}{shown}", i + 1)
            })
            .collect();
        let claim = match &hand.claim {
            Some((s, c)) => {
                format!("{} claimed {}", names.get(*s).cloned().unwrap_or_default(), c.text(game))
            }
            None => "no claim yet".into(),
        };
        lines.push(format!("  The cup: [{}]  {claim}", dice.join(" ")));
    }
    lines
}
