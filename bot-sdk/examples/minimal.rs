//! A whole bot: `cargo run -p dudo-bot --example minimal -- HOST:PORT JOINCODE`.
use dudo_bot::{Action, Bot, Options, Turn};
struct Cautious;
impl Bot for Cautious {
    fn act(&mut self, turn: &Turn) -> Action {
        match turn.view.current_bid {
            Some((_, bid)) if turn.may_challenge() && turn.odds(bid).at_least < 0.5 => turn.challenge(),
            _ => turn.least_raise().unwrap_or(turn.any()),
        }
    }
}
#[tokio::main]
async fn main() -> Result<(), dudo_bot::BotError> {
    dudo_bot::run(&mut Cautious, &Options::from_args("Cautious")).await.map(|_| ())
}
