//! `dudo`: play Liar's Dice in the terminal, alone against bots or at a server's tables;
//! and, offline, print rule sets, run scripted games and simulate bots.
//!
//! Every subcommand lives in its own module; this file only parses the command line.
//!
//! The command is a library with one entry, [`main`], and a binary (`main.rs`) that calls
//! it, so that cargo compiles this crate beside `dudo-server` rather than after it: a
//! library may start once the libraries it uses are type-checked, a binary only once they are
//! compiled whole. The runtimes are made here too, so the async code is compiled here, not in
//! the binary. Nothing else is public: this is not an API.
#![forbid(unsafe_code)]

mod account_cmd;
mod arena;
mod at_table;
mod bot_cmd;
mod bot_command;
mod history_cmd;
mod input;
mod ladder_cmd;
mod lobby_cmd;
mod net;
mod play;
mod presence;
mod render;
mod rules_cmd;
mod script_cmd;
mod seat_bots;
mod seats;
mod simulate;
mod tournament;

use clap::{Args, CommandFactory, Parser, Subcommand};

/// Liar's Dice in the terminal: Perudo, Dudo, Calza, Palifico and the rest of the family.
#[derive(Parser)]
#[command(
    name = "dudo",
    version,
    after_help = "Examples:\n  dudo play                         three bots, an embedded server\n  dudo play --bots expert           three expert bots, the strongest there are\n  dudo play --preset perudo-jonti --bots 5 --clock 30\n  dudo create --server HOST:50051   a table for friends; prints its join code\n  dudo join KQMTRB --server HOST:50051 --name Ana\n  dudo list --server HOST:50051\n  dudo watch KQMTRB --server HOST:50051\n  dudo rules house --format toml\n  dudo simulate --players 6 --games 10000 --bot odds,random\n  dudo completions bash > ~/.local/share/bash-completion/completions/dudo"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play against built-in bots, on a server embedded in this process or on --server.
    ///
    /// Examples: dudo play; dudo play --bots 5 --preset perudo-jonti --name Roger;
    /// dudo play --server HOST:50051 --clock 30
    Play(play::PlayArgs),
    /// List finished games from the records (the local database, or --server).
    ///
    /// Examples: dudo history; dudo history --player Ana --since 7days; dudo history --preset perudo-jonti
    History(history_cmd::HistoryArgs),
    /// Step through a finished game round by round: every cup, each call's odds when it was
    /// made, and who was right.
    ///
    /// Examples: dudo replay 3f9ac01b22de4a7c-1; dudo replay 3f9ac01b22de4a7c-1 --live --speed 4
    Replay(history_cmd::ReplayArgs),
    /// Stored Elo ratings: the arena's (from arena.db, where `dudo arena` keeps them), or a
    /// server's (--server), ranked tables' included where it keeps them.
    ///
    /// Examples: dudo ratings; dudo ratings --server HOST:50051 --pool ranked
    Ratings(history_cmd::RatingsArgs),
    /// Create a table on a server, print its join code and link, and sit at it as host.
    ///
    /// Examples: dudo create --server HOST:50051 --seats 4; dudo create --preset house --detach
    Create(lobby_cmd::CreateArgs),
    /// Take a seat at a table by its join code, link or id (or return to yours).
    ///
    /// Example: dudo join KQMTRB --name Ana --server HOST:50051
    Join(lobby_cmd::JoinArgs),
    /// List the tables not yet started (those with a free seat, and full ones to watch).
    ///
    /// Example: dudo list --server HOST:50051
    List(lobby_cmd::ListArgs),
    /// Watch a table as a spectator: public events only.
    ///
    /// Example: dudo watch KQMTRB --server HOST:50051
    Watch(lobby_cmd::WatchArgs),
    /// The host's commands for a table you created: settings, add-bot, start, who, remove, reset.
    ///
    /// Examples: dudo host --table KQMTRB add-bot odds; dudo host --table KQMTRB settings dice.faces=8;
    /// dudo host --table KQMTRB start
    Host(lobby_cmd::HostArgs),
    /// An account of your own on a server (for rated play), and its API tokens.
    ///
    /// Examples: dudo account register Ana --server HOST:50051; dudo account show;
    /// dudo account token new --label laptop; dudo account register Robo --bot
    Account(account_cmd::AccountArgs),
    /// Keep a bot of yours playing on a server's ladder, as your account.
    ///
    /// Examples: dudo ladder --server HOST:50051 (the pools); dudo ladder fibbing-4 --bot 'python3 bot.py';
    /// dudo ladder fibbing-4 --builtin odds --games 20
    Ladder(ladder_cmd::LadderArgs),
    /// Put a bot of yours through a server's bot check: a few short games against its bots
    /// that try every prompt, a dropped stream and a reset, then a report of what it did wrong.
    ///
    /// Example: dudo bot check --bot 'python3 bot.py' --server HOST:50051
    Bot(bot_cmd::BotArgs),
    /// A server's ladder boards: players by rating (mu - 3 sigma), games and wins.
    ///
    /// Examples: dudo leaderboard --server HOST:50051; dudo leaderboard fibbing-4 --history Robo
    Leaderboard(ladder_cmd::LeaderboardArgs),
    /// Leave a table: at once before the start or between rounds; mid-round at the round's
    /// end, your moves played by default until then.
    ///
    /// Example: dudo leave KQMTRB
    Leave(lobby_cmd::LeaveArgs),
    /// List the presets, or print one as TOML or JSON.
    ///
    /// Examples: dudo rules; dudo rules house; dudo rules fibbing --format json
    Rules(rules_cmd::RulesArgs),
    /// Run a scripted game and print every event, one JSON object per line.
    ///
    /// Example: dudo script examples/scripts/fibbing-example.json --format text
    Script(script_cmd::ScriptArgs),
    /// Play many games between built-in bots on every core and print the results.
    ///
    /// Example: dudo simulate --preset fibbing --players 6 --games 10000 --bot odds --bot random
    Simulate(simulate::SimulateArgs),
    /// Many games between bots, duplicate-seeded, with standings, intervals and Elo.
    ///
    /// Examples: dudo arena --bots odds,random --games 200 --seed 7;
    /// dudo arena --bots odds,reader,random --mode free-for-all --out results.jsonl;
    /// dudo arena --bots odds --external mine='python3 bot.py'
    Arena(arena::ArenaArgs),
    /// A server's tournaments (create, list, show, enter, standings, export, cancel), and
    /// checking a tournament's export without its server (verify).
    ///
    /// Example: dudo tournament verify results.json
    Tournament(tournament::TournamentArgs),
    /// Print a shell completion script.
    ///
    /// Example: dudo completions bash > ~/.local/share/bash-completion/completions/dudo
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// Choosing a rule set: a preset plus any number of overrides.
#[derive(Args, Clone, Debug)]
pub struct RuleArgs {
    /// The preset to start from (see `dudo rules`).
    #[arg(long, default_value = "fibbing")]
    pub preset: String,
    /// A whole rule set from a file (TOML, or JSON if it ends in .json), instead of a preset;
    /// `dudo rules NAME > my.toml` makes one to edit.
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    pub rules_file: Option<std::path::PathBuf>,
    /// Dice each player starts with (and the maximum).
    #[arg(long)]
    pub dice: Option<u8>,
    /// Override any rule: --rule dice.faces=8 --rule exact_call.who=on_turn
    #[arg(long = "rule", value_name = "FIELD=VALUE")]
    pub rules: Vec<String>,
}

impl RuleArgs {
    /// The rule part of a table request: a preset and settings, or a whole rule set from a
    /// file. Checked here first, so a mistake is named before anything is sent.
    pub fn request(&self) -> anyhow::Result<dudo_client::dudo_proto::v1::CreateTableRequest> {
        let resolved = self.resolve()?;
        let mut request = dudo_client::dudo_proto::v1::CreateTableRequest::default();
        if self.rules_file.is_some() {
            request.rules = Some(dudo_client::dudo_proto::convert::rules_to_wire(&resolved));
            return Ok(request);
        }
        request.preset = self.preset.clone();
        let setting =
            |path: &str, value: String| dudo_client::dudo_proto::v1::Setting { path: path.into(), value };
        if let Some(d) = self.dice {
            // Both at once: start and max set one after the other could pass through an invalid pair.
            request.settings.push(setting("dice", format!(r#"{{"start":{d},"max":{d}}}"#)));
        }
        for s in &self.rules {
            if let Some((path, value)) = s.split_once('=') {
                request.settings.push(setting(path.trim(), value.trim().to_string()));
            }
        }
        Ok(request)
    }

    pub fn resolve(&self) -> anyhow::Result<dudo_rules::RuleSet> {
        use anyhow::Context;
        use dudo_rules::presets;
        let mut rules = match &self.rules_file {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
                let rules: dudo_rules::RuleSet = if path.extension().is_some_and(|e| e == "json") {
                    serde_json::from_str(&text)
                        .with_context(|| format!("reading the rule set in {}", path.display()))?
                } else {
                    toml::from_str(&text)
                        .with_context(|| format!("reading the rule set in {}", path.display()))?
                };
                rules.validate()?;
                rules
            }
            None => presets::by_name(&self.preset).ok_or_else(|| {
                anyhow::anyhow!("no preset {:?}; the presets are {}", self.preset, presets::NAMES.join(", "))
            })?,
        };
        if let Some(d) = self.dice {
            rules = presets::with_overrides(rules, &serde_json::json!({"dice": {"start": d, "max": d}}))?;
        }
        for setting in &self.rules {
            let (path, value) = setting.split_once('=').ok_or_else(|| {
                anyhow::anyhow!("--rule takes FIELD=VALUE, as in dice.faces=8; got {setting:?}")
            })?;
            rules = presets::with_setting(rules, path.trim(), value.trim())?;
        }
        Ok(rules)
    }
}

/// `dudo leaderboard POOL | head -n 1`: once the reader has gone, printing fails, and Rust
/// (which ignores SIGPIPE) turns that into a panic in every `println!`. A closed standard
/// output is the reader saying it has read enough: the command ends there, quietly, with the
/// status a shell gives a command its pipe closed (141), as other command-line tools do.
fn quiet_on_a_closed_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info);
    }));
}

/// Runs the `dudo` command with this process's arguments.
pub fn main() -> std::process::ExitCode {
    quiet_on_a_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(a) => play::run(a),
        Command::History(a) => history_cmd::history(a),
        Command::Replay(a) => history_cmd::replay(a),
        Command::Ratings(a) => history_cmd::ratings(a),
        Command::Arena(a) => arena::run(a),
        Command::Tournament(a) => tournament::run(a),
        Command::Create(a) => lobby_cmd::create(a),
        Command::Join(a) => lobby_cmd::join(a),
        Command::List(a) => lobby_cmd::list(a),
        Command::Watch(a) => lobby_cmd::watch(a),
        Command::Host(a) => lobby_cmd::host(a),
        Command::Leave(a) => lobby_cmd::leave(a),
        Command::Account(a) => account_cmd::run(a),
        Command::Ladder(a) => ladder_cmd::run(a),
        Command::Bot(a) => bot_cmd::run(a),
        Command::Leaderboard(a) => ladder_cmd::leaderboard(a),
        Command::Completions { shell } => {
            // Made whole first: clap_complete panics if its writer fails (a closed pipe).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "dudo", &mut script);
            let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
            Ok(std::process::ExitCode::SUCCESS)
        }
        Command::Rules(a) => rules_cmd::run(a),
        Command::Script(a) => script_cmd::run(a),
        Command::Simulate(a) => simulate::run(a),
    };
    match result {
        Ok(code) => code,
        // `dudo history | head`: the reader has all it wanted.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dudo: {}", error_chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// An error and its causes in one line, each said once: many errors repeat their cause in
/// their own message ("transport error: tcp connect error: …" once, not twice each). What a
/// server said is made safe to print; this program's own messages keep their line breaks (a
/// TOML error points at the line at fault).
fn error_chain(error: &anyhow::Error) -> String {
    let mut said: Vec<String> = Vec::new();
    for cause in error.chain() {
        let cause = if cause.downcast_ref::<dudo_client::ClientError>().is_some() {
            render::safe(&cause.to_string()).into_owned()
        } else {
            cause.to_string().split('\n').map(render::safe).collect::<Vec<_>>().join("\n")
        };
        let parts: Vec<&str> = cause.split(": ").filter(|p| !p.is_empty()).collect();
        // The longest end of what is said already that this cause begins with is not said again.
        let overlap = (1..=said.len().min(parts.len()))
            .rev()
            .find(|&k| said[said.len() - k..].iter().zip(&parts[..k]).all(|(a, b)| a == b))
            .unwrap_or(0);
        said.extend(parts[overlap..].iter().map(|p| p.to_string()));
    }
    said.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);
    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as &(dyn std::error::Error + 'static))
        }
    }

    #[test]
    fn an_error_chain_says_each_cause_once() {
        // As tonic's connection errors nest: layers that repeat the one below, or its start.
        let refused = Layer("Connection refused (os error 111)", None);
        let tcp = Layer("tcp connect error", Some(Box::new(refused)));
        let tcp = Layer("tcp connect error", Some(Box::new(tcp)));
        let transport = Layer("transport error", Some(Box::new(tcp)));
        let error = anyhow::Error::new(Layer(
            "cannot reach the dudo server at 127.0.0.1:1: transport error",
            Some(Box::new(transport)),
        ));
        assert_eq!(
            error_chain(&error),
            "cannot reach the dudo server at 127.0.0.1:1: transport error: tcp connect error: Connection refused (os error 111)"
        );
        let plain = anyhow::anyhow!("no preset \"x\"").context("choosing the rules");
        assert_eq!(error_chain(&plain), "choosing the rules: no preset \"x\"");
        let nested =
            Layer("reading x.toml: no such file", Some(Box::new(Layer("no such file: x.toml", None))));
        assert_eq!(error_chain(&anyhow::Error::new(nested)), "reading x.toml: no such file: x.toml");
        // A server's refusal cannot start a line of its own, nor colour the terminal.
        let refused =
            dudo_client::ClientError::Address { addr: "h:1".into(), why: "no\n\x1b[31mdudo: fake".into() };
        let text = error_chain(&anyhow::Error::new(refused).context("joining"));
        assert!(text.starts_with("joining: h:1 is not a server address"), "{text}");
        assert!(text.ends_with(": no\\u{a}\\u{1b}[31mdudo: fake"), "{text}");
        // A multi-line message of this program's own keeps its lines.
        let toml = anyhow::anyhow!("TOML parse error at line 1\n  |\n1 | x").context("reading x.toml");
        assert_eq!(error_chain(&toml), "reading x.toml: TOML parse error at line 1\n  |\n1 | x");
    }
}
