//! `dudo play`: a game in the terminal against built-in bots.
//!
//! The engine runs in this process; you see exactly the events your seat's audience admits,
//! the same filter the server applies to a network seat. (Playing through an embedded server
//! and against remote tables arrives with the server.)

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::Args;
use dudo_rules::describe::describe_in;
use dudo_rules::game::exact_call_name;
use dudo_rules::odds::bid_odds;
use dudo_rules::{Action, Event, Game, Legal, View, Viewer, bots, parse_call, seed_from_u64};

use crate::RuleArgs;

const BOT_NAMES: &[&str] =
    &["Alice", "Bob", "Carmen", "Diego", "Elena", "Felipe", "Gloria", "Hugo", "Ines", "Jorge", "Lucia"];

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// How many bots join you.
    #[arg(long, default_value_t = 3)]
    pub bots: usize,
    /// The kind of bot (random, odds).
    #[arg(long, default_value = "odds")]
    pub bot: String,
    /// Your name at the table.
    #[arg(long, default_value = "You")]
    pub name: String,
    /// Seed for the dice (default: a fresh one each game).
    #[arg(long)]
    pub seed: Option<u64>,
}

const HUMAN: usize = 0;

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let rules = args.rules.resolve()?;
    if bots::by_name(&args.bot, 0).is_none() {
        anyhow::bail!("no bot {:?}; the bots are {}", args.bot, bots::NAMES.join(", "));
    }
    let seats = args.bots + 1;
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let mut names = vec![args.name.clone()];
    names
        .extend((0..args.bots).map(|i| BOT_NAMES.get(i).map_or(format!("Bot {}", i + 1), |n| n.to_string())));
    let mut table: Vec<Option<Box<dyn bots::Bot>>> = (0..seats)
        .map(|s| if s == HUMAN { None } else { bots::by_name(&args.bot, seed.wrapping_add(s as u64)) })
        .collect();
    let (mut game, events) = Game::start(rules, seats, seed_from_u64(seed))?;
    println!(
        "dudo: {} with {} ({} bots), seed {seed}. Type `help` for how to call.",
        game.rules().name,
        names.join(", "),
        args.bot
    );
    let mut input = std::io::stdin().lock();
    show(&game, &events, &names);
    while !game.is_over() {
        let turn = game.turn().unwrap_or(HUMAN);
        let mut chosen: Option<(usize, Action)> = None;
        for seat in game.seats_to_ask() {
            if seat == turn {
                continue;
            }
            let legal = game.legal(seat);
            let offer = match &mut table[seat] {
                Some(bot) => bot.interject(game.rules(), &game.view(seat), &legal),
                None => match ask_out_of_turn(&game, &names, &mut input)? {
                    Some(a) => Some(a),
                    None if input_closed(&mut input) => return Ok(ExitCode::SUCCESS),
                    None => None,
                },
            };
            if let Some(a) = offer {
                chosen = Some((seat, a));
                break;
            }
        }
        let (seat, action) = match chosen {
            Some(c) => c,
            None => match &mut table[turn] {
                Some(bot) => (turn, bot.act(game.rules(), &game.view(turn), &game.legal(turn))),
                None => match ask_turn(&game, &names, &mut input)? {
                    Some(a) => (turn, a),
                    None => return Ok(ExitCode::SUCCESS),
                },
            },
        };
        match game.apply(seat, &action) {
            Ok(events) => show(&game, &events, &names),
            Err(e) if seat == HUMAN => println!("Not allowed: {e}"),
            Err(e) => anyhow::bail!("bot {} made an illegal call {action}: {e}", names[seat]),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (t as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

fn input_closed(input: &mut impl BufRead) -> bool {
    input.fill_buf().map(|b| b.is_empty()).unwrap_or(true)
}

fn show(game: &Game, events: &[Event], names: &[String]) {
    let kind = game.rules().family.hand_game();
    for e in events {
        if e.audience.admits(Viewer::Seat(HUMAN), game.is_over()) {
            println!("  {}", describe_in(&e.kind, names, kind));
        }
    }
}

fn read_line(input: &mut impl BufRead) -> anyhow::Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

/// The cup of an individual-hand game from the human's seat.
fn hand_status(game: &Game, view: &View, names: &[String], kind: dudo_rules::hand::HandGame) -> String {
    let lives: Vec<String> = view
        .players
        .iter()
        .enumerate()
        .filter(|(_, p)| p.place.is_none())
        .map(|(s, p)| format!("{} {}", names[s], p.lives))
        .collect();
    let Some(hand) = &view.hand else { return String::new() };
    let dice: Vec<String> = hand
        .dice
        .iter()
        .enumerate()
        .map(|(i, d)| format!("{}:{}", i + 1, d.map_or('?', |f| kind.face_symbol(f))))
        .collect();
    let claim = match &hand.claim {
        Some((s, c)) => format!("{} claimed {}", names[*s], c.text(kind)),
        None => "no claim yet".into(),
    };
    let lives = if matches!(
        game.rules().family,
        dudo_rules::ruleset::Family::Mexican | dudo_rules::ruleset::Family::MexicanTwoDice
    ) {
        let drinks: Vec<String> =
            view.players.iter().enumerate().map(|(s, p)| format!("{} {}", names[s], p.drinks)).collect();
        format!("Drinks: {}", drinks.join(", "))
    } else {
        format!("Lives: {}", lives.join(", "))
    };
    format!("Hand {}. {lives}. The cup: [{}]. {claim}.", game.round(), dice.join(" "))
}

fn status(game: &Game, view: &View, names: &[String]) -> String {
    if let Some(kind) = game.rules().family.hand_game() {
        return hand_status(game, view, names, kind);
    }
    let counts: Vec<String> = view
        .players
        .iter()
        .enumerate()
        .filter(|(_, p)| p.place.is_none())
        .map(|(s, p)| format!("{} {}", names[s], p.dice))
        .collect();
    let mine: Vec<String> = view.my_dice.iter().map(|d| d.map_or("?".into(), |f| f.to_string())).collect();
    let bid = match view.current_bid {
        Some((s, b)) => format!("{} bid {b}", names[s]),
        None => "no bid yet: you open".into(),
    };
    let special = if view.palifico.is_empty() { "" } else { " PALIFICO" };
    let rules = game.rules();
    let mut ledger = Vec::new();
    if matches!(rules.game_end, dudo_rules::ruleset::GameEnd::Points(_)) {
        ledger.push(format!("Points: {}", tally(view, names, |p| p.score.to_string())));
    }
    if rules.wager.mode != dudo_rules::ruleset::WagerMode::Off {
        ledger.push(format!("Money: {}", tally(view, names, |p| format!("{:+}", p.money))));
    }
    if rules.drinks.tally == dudo_rules::ruleset::DrinksTally::On {
        ledger.push(format!("Drinks: {}", tally(view, names, |p| p.drinks.to_string())));
    }
    let ledger = if ledger.is_empty() { String::new() } else { format!("\n{}", ledger.join(". ")) };
    format!(
        "Round {}{special}. Dice: {}. Your dice: [{}]. {bid}.{ledger}",
        game.round(),
        counts.join(", "),
        mine.join(" ")
    )
}

fn tally(view: &View, names: &[String], value: impl Fn(&dudo_rules::game::PlayerView) -> String) -> String {
    let parts: Vec<String> =
        view.players.iter().enumerate().map(|(s, p)| format!("{} {}", names[s], value(p))).collect();
    parts.join(", ")
}

fn hint(legal: &Legal, calza: &str) -> String {
    if let Some(kind) = legal.hand_game {
        let mut parts = Vec::new();
        if !legal.dudo.is_empty() {
            parts.push("dudo (lift the cup)".to_string());
        }
        if legal.accept {
            parts.push("accept".to_string());
        }
        if let Some(roll) = legal.roll {
            let cost =
                if roll.drinks > 0 { format!(" (costs {} drinks)", roll.drinks) } else { String::new() };
            parts.push(if roll.all {
                format!("roll all{cost}")
            } else {
                format!("roll POSITIONS such as `roll 1 3`{cost}")
            });
            if roll.may_show {
                parts.push("roll 1 3 show 2 (leave dice in view)".to_string());
            }
        }
        if let Some(from) = &legal.claim_from {
            parts.push(format!(
                "a claim of {} or better (`better`, `a pair of jacks`, a hand)",
                from.text(kind)
            ));
        }
        if legal.dogs_life {
            parts.push("bark (take the dog's life) or decline".to_string());
        }
        return format!("You may: {}", parts.join("; "));
    }
    let mut parts: Vec<String> =
        legal.bids.iter().map(|r| format!("{} {}s", r.min_quantity, r.face)).collect();
    if !legal.dudo.is_empty() {
        parts.push("dudo".into());
    }
    if legal.calza {
        parts.push(calza.into());
    }
    if legal.pass {
        parts.push("pass".into());
    }
    if legal.push {
        parts.push("push DICE then BID".into());
    }
    if legal.watch {
        parts.push("watch".into());
    }
    format!("You may call: {}", parts.join(", "))
}

fn odds_text(game: &Game, view: &View) -> String {
    let faces = game.rules().dice.faces;
    let mut lines = Vec::new();
    if let Some((_, bid)) = view.current_bid {
        let o = bid_odds(view, faces, bid);
        lines.push(format!(
            "{bid}: {:.0}% true, {:.0}% exactly right",
            o.at_least * 100.0,
            o.exactly * 100.0
        ));
    }
    for r in &game.legal(HUMAN).bids {
        let b = dudo_rules::Bid::new(r.min_quantity, r.face);
        lines.push(format!("{b}: {:.0}% true", bid_odds(view, faces, b).at_least * 100.0));
    }
    lines.join("\n")
}

/// Reads a call in the table's game.
fn parse_for(game: &Game, view: &View, line: &str) -> Result<Action, dudo_rules::action::CallParseError> {
    match game.rules().family.hand_game() {
        None => parse_call(line),
        Some(kind) => {
            let previous = view.hand.as_ref().and_then(|h| h.claim.as_ref()).map(|c| &c.1);
            dudo_rules::action::parse_hand_call(kind, line, previous)
        }
    }
}

const HELP: &str = "Calls: a bid such as `3 5s`, `three fives` or `3x5`; `dudo` to challenge; `calza` \
(or jonti/exact/spot on) for exactly right; `pass`; `push 5 5 then 6 5s`; `watch` in the points game. \
Also: `odds`, `status`, `quit`.";

fn ask_turn(game: &Game, names: &[String], input: &mut impl BufRead) -> anyhow::Result<Option<Action>> {
    let view = game.view(HUMAN);
    let legal = game.legal(HUMAN);
    println!("{}", status(game, &view, names));
    println!("{}", hint(&legal, exact_call_name(game.rules())));
    loop {
        print!("your call> ");
        std::io::stdout().flush()?;
        let Some(line) = read_line(input)? else {
            return Ok(None);
        };
        match line.to_ascii_lowercase().as_str() {
            "" => continue,
            "help" | "?" => println!("{HELP}"),
            "odds" if game.rules().family.hand_game().is_none() => println!("{}", odds_text(game, &view)),
            "status" => {
                println!("{}\n{}", status(game, &view, names), hint(&legal, exact_call_name(game.rules())))
            }
            "quit" | "exit" => return Ok(None),
            _ => match parse_for(game, &view, &line) {
                Ok(action) => match game.check(HUMAN, &action) {
                    Ok(()) => return Ok(Some(action)),
                    Err(e) => println!("Not allowed: {e}"),
                },
                Err(e) => println!("{e}"),
            },
        }
    }
}

fn ask_out_of_turn(
    game: &Game,
    names: &[String],
    input: &mut impl BufRead,
) -> anyhow::Result<Option<Action>> {
    let call = exact_call_name(game.rules());
    let view = game.view(HUMAN);
    let legal = game.legal(HUMAN);
    let Some((bidder, bid)) = view.current_bid else { return Ok(None) };
    let mut offers = Vec::new();
    if legal.calza {
        offers.push(format!("`{call}` to call it exactly right"));
    }
    if !legal.dudo.is_empty() {
        offers.push("`dudo` to challenge it out of turn".to_string());
    }
    loop {
        print!("{} bid {bid}. Type {}, or Enter to let play go on> ", names[bidder], offers.join(" or "));
        std::io::stdout().flush()?;
        let Some(line) = read_line(input)? else { return Ok(None) };
        match line.to_ascii_lowercase().as_str() {
            "" => return Ok(None),
            "odds" => println!("{}", odds_text(game, &view)),
            "help" | "?" => println!("{HELP}"),
            l => match parse_call(l) {
                Ok(Action::Calza) if legal.calza => return Ok(Some(Action::Calza)),
                Ok(Action::Dudo { target }) if !legal.dudo.is_empty() => {
                    return Ok(Some(Action::Dudo { target }));
                }
                _ => println!("It is not your turn: only {} may be called now.", offers.join(" or ")),
            },
        }
    }
}
