//! What people type at the table: a line turned into a call (checked against the prompt's
//! legal actions before it is sent) or a host command, and what the server says back.

use super::*;

impl AtTable {
    pub(super) fn parse(&self, prompt: &Prompt, line: &str) -> Result<Action, String> {
        let view = &prompt.view;
        match self.rules.family.hand_game() {
            None => prompt.legal.parse_call(line).map_err(|e| e.to_string()),
            Some(kind) => {
                let previous = view.hand.as_ref().and_then(|h| h.claim.as_ref()).map(|c| &c.1);
                dudo_rules::action::parse_hand_call(kind, line, previous).map_err(|e| e.to_string())
            }
        }
    }

    /// What was typed. Returns how the seat ends, if it does.
    pub(super) async fn on_input(&mut self, input: Input, session: &Session) -> Option<Exit> {
        match input {
            Input::Line(line) => self.on_line(&line, session).await,
            Input::Interrupt | Input::End => self.ask_to_leave(),
        }
    }

    /// A typed line. Returns how the seat ends, if it does.
    pub(super) async fn on_line(&mut self, line: &str, session: &Session) -> Option<Exit> {
        let trimmed = line.trim();
        let lower = trimmed.trim_start_matches('/').to_ascii_lowercase();
        let (word, rest) = lower.split_once(' ').map_or((lower.as_str(), ""), |(w, r)| (w, r.trim()));
        let original_rest = trimmed.split_once(' ').map_or("", |(_, r)| r.trim());
        // Two questions may be open at once, the quit question and a call window's: a no
        // answers the one asked last, and the other is still asked (and said so).
        if let Some(asked) = self.confirming {
            let window_after = self.window_open().is_some() && self.offered_at > asked;
            match word {
                "y" | "yes" | "quit" | "exit" | "quit!" => return Some(self.walk_out()),
                "n" | "no" if window_after => {}
                "" | "n" | "no" => {
                    self.confirming = None;
                    self.out.line("Staying at the table.");
                    if let Some(p) = self.window_open() {
                        let still = format!(
                            "Still open: {} on the bid in front of you, or `no` to let it stand.",
                            self.offers(p)
                        );
                        self.out.line(self.style.cyan(&still));
                    }
                    return None;
                }
                // Anything else is taken as it is: a call, a command.
                _ => self.confirming = None,
            }
        }
        match word {
            // Enter after a showdown: this player has seen the reveal.
            "" | "next" if self.between_rounds.is_some() && self.key.is_some() => {
                if session.next_round().await.is_err() {
                    self.out.line(self.style.red("The connection to the table has closed."));
                }
            }
            "" => {}
            "next" => self.out.line("Nothing to go on from: `next` answers the pause after a showdown."),
            "say" if original_rest.is_empty() => self.out.line("Write it as `say nice bluff!`."),
            "say" => self.say(original_rest, pb::Reaction::None, session).await,
            "laugh" | "lol" => self.say("", pb::Reaction::Laugh, session).await,
            // `liar` alone is a challenge, as the calls have it: the reaction has its "!".
            "liar!" => self.say("", pb::Reaction::Liar, session).await,
            "clap" | "applause" | "applaud" => self.say("", pb::Reaction::Applause, session).await,
            "wow" => self.say("", pb::Reaction::Wow, session).await,
            "gg" => self.say("", pb::Reaction::GoodGame, session).await,
            "help" | "?" => {
                self.out.lines(HELP.iter().map(|l| l.to_string()));
                if let Some(claim) = render::pass_claim(&self.rules) {
                    self.out.line(format!("At this table `pass` is {claim}."));
                }
            }
            "quit!" | "exit!" => return Some(self.walk_out()),
            "quit" | "exit" => return self.ask_to_leave(),
            "status" => match &self.view {
                Some(v) if self.table.state != pb::TableState::Waiting as i32 => {
                    self.out.lines(render::status(
                        v,
                        &self.rules,
                        &self.status_names(),
                        self.host(),
                        self.style,
                    ));
                    match self.waits() {
                        // While play waits, nobody is to move: what it waits for instead.
                        Some(waits) => self.out.line(self.style.cyan(&waits)),
                        None => {
                            if let Some(p) = &self.prompt {
                                self.out.line(render::hint(&p.legal, &self.rules, self.style));
                            }
                        }
                    }
                }
                _ => self.out.lines(self.waiting_room()),
            },
            "who" => self.out.lines(self.waiting_room()),
            // How to play these rules, in the engine's words (what the browser table shows).
            "rules" => self.out.lines(
                dudo_rules::how_to_play::how_to_play(&self.rules)
                    .into_iter()
                    .map(|n| format!("{}: {}", n.topic, n.text)),
            ),
            // No call out of turn on this claim (the call window's answer).
            "n" | "no" => {
                let Some(p) = self.window_open().cloned() else {
                    let said = if self.in_flight && self.sent.is_some() {
                        "You have answered this call window."
                    } else {
                        "No call window is asking you now: `no` answers one (`help` says more)."
                    };
                    self.out.line(said);
                    return None;
                };
                self.answered = Some(p.last_seq);
                self.in_flight = true;
                self.sent = Some(Sent::Pass);
                if session.pass_call(&p).await.is_err() {
                    self.out.line(self.style.red("The connection to the table has closed."));
                    return None;
                }
                self.out.line(self.style.dim(&format!("You let {} stand.", self.claim_in_front(&p.view))));
                if self.confirming.is_some() {
                    self.out.line(self.style.yellow("Still asked: leave the game? y/N"));
                }
            }
            "odds" => self.out.lines(self.odds()),
            "start" | "bot" | "set" | "remove" | "reset" | "again" | "leave" | "pause" | "resume"
            | "link" | "mute" | "unmute" | "revoke" => {
                return self.lobby_command(word, rest, original_rest).await;
            }
            _ => self.call(trimmed, session).await,
        }
        None
    }

    /// A line (or a reaction) said at the table: a seat's on its own stream; a spectator's as
    /// a spectator, where the host lets them.
    async fn say(&mut self, text: &str, reaction: pb::Reaction, session: &Session) {
        let sent = match &self.key {
            Some(_) => session.say(text, reaction).await.map_err(|e| e.to_string()),
            None => {
                let table = self.table.id.clone();
                self.client.say(None, &table, "", text, reaction).await.map_err(|e| e.to_string())
            }
        };
        if let Err(e) = sent {
            self.out.line(self.style.red(&format!("Not said: {}", safe(&e))));
        }
    }

    pub(super) async fn call(&mut self, line: &str, session: &Session) {
        let Some(key) = &self.key else {
            self.out.line("You are watching: spectators make no calls.");
            return;
        };
        if self.between_rounds.is_some() {
            self.out.line("The next round has not begun: everyone is looking at the reveal. Press Enter when you have seen it.");
            return;
        }
        let Some(prompt) = &self.prompt else {
            let turn = self.view.as_ref().and_then(|v| v.turn);
            let whose = match turn.and_then(|t| self.players.get(t)) {
                Some(name) if !self.over => format!(" ({name} is to play)"),
                _ => String::new(),
            };
            self.out.line(format!("It is not your turn{whose}: nothing may be called now."));
            return;
        };
        let action = match self.parse(prompt, line) {
            Ok(a) => a,
            Err(e) => {
                self.out.line(self.style.red(&e));
                return;
            }
        };
        let my_turn = prompt.view.turn == Some(key.seat as usize);
        if !my_turn {
            let allowed = match &action {
                Action::Calza => prompt.legal.calza,
                Action::Dudo { .. } => !prompt.legal.dudo.is_empty(),
                _ => false,
            };
            if !allowed {
                self.out.line("It is not your turn: only an out-of-turn call offered above may be made now.");
                return;
            }
        }
        self.in_flight = true;
        self.answered = Some(prompt.last_seq);
        self.sent = Some(if my_turn { Sent::Move } else { Sent::Call });
        if session.answer(prompt, action).await.is_err() {
            self.out.line(self.style.red("The connection to the table has closed."));
        }
    }

    pub(super) async fn lobby_command(
        &mut self,
        word: &str,
        rest: &str,
        original_rest: &str,
    ) -> Option<Exit> {
        let Some(key) = self.key.clone() else {
            self.out.line("You are watching: only seated players may do that.");
            return None;
        };
        // `again` is for after a game: typed in the middle of one it would end it for everyone.
        if word == "again" && self.table.state == pb::TableState::Playing as i32 && !self.over {
            self.out.line("The game is still on: `again` starts another once it is over (`reset` ends this one now, for everyone).");
            return None;
        }
        let client = self.client.clone();
        let result = match word {
            "start" => client.start(&key).await.map(|_| "The game begins.".to_string()),
            "bot" => {
                let kind = if rest.is_empty() { "odds" } else { rest };
                // The table says who sat down, in its own words, to everyone.
                client.add_bot(&key, kind).await.map(|_| String::new())
            }
            "set" => match original_rest.split_once('=') {
                // The table says what changed, in words, to everyone.
                Some((path, value)) => client
                    .change_settings(&key, vec![(path.trim().to_string(), value.trim().to_string())])
                    .await
                    .map(|_| String::new()),
                None => Ok("Write it as `set FIELD=VALUE`, as in `set dice.faces=8`.".to_string()),
            },
            "remove" => match rest.parse::<u32>() {
                Ok(seat) => client.remove(&key, seat).await.map(|_| format!("Seat {seat} is taken out.")),
                Err(_) => {
                    Ok("Write it as `remove SEAT`, with the seat's number (`who` lists them).".to_string())
                }
            },
            "reset" => {
                self.resetting = true;
                client.reset(&key).await.map(|_| "The table is back to waiting.".to_string())
            }
            "again" => match client.reset(&key).await {
                Ok(_) => client.start(&key).await.map(|_| "Another game begins.".to_string()),
                Err(e) => Err(e),
            },
            "pause" => client.pause(&key).await.map(|_| String::new()),
            "resume" => client.resume(&key).await.map(|_| String::new()),
            "link" => client.seat_link(&key).await.map(|l| {
                format!(
                    "Your seat's own link (keep it to yourself; a new `link` replaces it): {}\nOn another device open it in a browser, or `dudo join {}` in a terminal.",
                    l.link, l.link
                )
            }),
            "mute" | "unmute" | "revoke" => match rest.parse::<u32>() {
                Ok(seat) if word == "revoke" => client.revoke_seat_link(&key, seat).await.map(|_| String::new()),
                Ok(seat) => client.mute(&key, seat, word == "mute").await.map(|_| String::new()),
                Err(_) => Ok(format!("Write it as `{word} SEAT`, with the seat's number (`who` lists them).")),
            },
            "leave" => match client.leave(&key).await {
                Ok(info) => {
                    crate::seats::forget(client.addr(), &key.table, Some(&key.token));
                    let mid_round = info.players.get(key.seat as usize).is_some_and(|p| p.leaving);
                    self.out.line(if mid_round {
                        "You left the table: your moves are played by default until this round ends."
                    } else {
                        "You left the table."
                    });
                    return Some(Exit::Left);
                }
                Err(e) => Err(e),
            },
            _ => return None,
        };
        if word == "again" {
            self.resetting = result.is_ok();
        }
        match result {
            // The table's own line says it to everyone (a pause, a mute).
            Ok(text) if text.is_empty() => {}
            Ok(text) => self.out.line(text),
            Err(e) => {
                self.resetting = false;
                self.out.line(self.style.red(&format!("Refused: {}", safe(&e.to_string()))));
            }
        }
        None
    }
}
