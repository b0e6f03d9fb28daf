//! What the table shows: the table's changes and the waiting room, each update of the
//! session drawn for people, the prompt with its countdown and the odds.

use super::*;

impl AtTable {
    pub(super) fn set_table(&mut self, mut table: pb::TableInfo, rules: Arc<RuleSet>) {
        // Everything the server names is printed: made safe once, here.
        for p in &mut table.players {
            p.name = render::account_name(&p.name, p.account);
        }
        if let Cow::Owned(code) = safe(&table.join_code) {
            table.join_code = code;
        }
        let rules = safe_rules(rules);
        // A table seen before: what the host changed in it is news to everyone else.
        if !self.table.id.is_empty() {
            self.tell_changes(&table);
        }
        // A prompt held through a pause is in force again once the game is resumed: drawn
        // again when the table sends it (it is the same prompt, otherwise said only once).
        if self.table.pause.is_some() && table.pause.is_none() {
            self.prompt = None;
        }
        // Who sat down or left is the table's own line (`Update::Line`), said once.
        let players: Vec<String> = table.players.iter().map(|p| p.name.clone()).collect();
        if !self.table.id.is_empty() {
            for line in crate::presence::changes(&self.table, &table) {
                self.out.line(self.style.dim(&line));
            }
        }
        // A seat number can change before the start (someone left): the table says which is ours.
        self.players = players;
        self.rules = rules;
        self.table = table;
    }

    /// Says what the host changed: the table reset to waiting (the rules' changes are the
    /// table's own lines).
    pub(super) fn tell_changes(&mut self, table: &pb::TableInfo) {
        let waiting = pb::TableState::Waiting as i32;
        let noted = std::mem::take(&mut self.reset_noted);
        if self.table.state != waiting
            && table.state == waiting
            && !noted
            && !std::mem::take(&mut self.resetting)
        {
            self.out.line(self.style.dim("The host reset the table: back to waiting, same seats and rules."));
        }
    }

    /// The names the board shows: each with its presence mark ("Ben (away 2 min)").
    pub(super) fn status_names(&self) -> Vec<String> {
        let now = SystemTime::now();
        let mark =
            |s: usize| self.table.players.get(s).map(|p| crate::presence::mark(p, now)).unwrap_or_default();
        self.players.iter().enumerate().map(|(s, n)| format!("{n}{}", mark(s))).collect()
    }

    /// Who sits where, by the seat numbers `remove SEAT` takes.
    pub(super) fn seat_list(&self) -> String {
        let seated: Vec<String> = self
            .players
            .iter()
            .enumerate()
            .map(|(s, n)| {
                let marks = match (Some(s) == self.me(), s == self.host()) {
                    (true, true) => " (you, host)",
                    (true, false) => " (you)",
                    (false, true) => " (host)",
                    (false, false) => "",
                };
                let here = self.table.players.get(s).map(|p| crate::presence::mark(p, SystemTime::now()));
                format!("seat {s} {n}{marks}{}", here.unwrap_or_default())
            })
            .collect();
        seated.join(", ")
    }

    pub(super) fn waiting_room(&self) -> Vec<String> {
        let t = &self.table;
        let waiting = t.state == pb::TableState::Waiting as i32;
        if self.solo && waiting {
            let bots = t.seats.saturating_sub(1);
            return vec![format!(
                "Table {} ({}): you and {bots} {}.",
                self.style.bold(&t.join_code),
                self.rules.name,
                if bots == 1 { "bot" } else { "bots" }
            )];
        }
        let clock = match (t.move_millis / 1000, t.time_bank_millis / 1000) {
            (0, _) if t.move_millis == 0 => "no clock".to_string(),
            (0, _) => format!("clock {} ms a move", t.move_millis),
            (secs, 0) => format!("clock {secs} s a move"),
            (secs, bank) => format!("clock {secs} s a move, {bank} s bank"),
        };
        let mut lines = vec![format!(
            "Table {} ({}), {} of {} seats taken, {clock}.",
            self.style.bold(&t.join_code),
            self.rules.name,
            t.players.len(),
            t.seats,
        )];
        if waiting && t.players.len() < t.seats as usize {
            lines.push(format!("Others join with: {}", crate::render::join_hint(t, self.client.addr())));
        }
        lines.push(format!("At the table: {}", self.seat_list()));
        if waiting && self.me() == Some(self.host()) {
            lines.push(
                "You are the host: `bot` adds a bot, `set FIELD=VALUE` changes a rule, `start` begins."
                    .into(),
            );
        } else if waiting && self.key.is_some() {
            lines.push("Waiting for the host to start the game.".into());
        }
        lines
    }

    /// A line of the table's talk as the terminal shows it: "Ana: nice bluff", "Ana laughs 😂",
    /// the table's own news dimmed.
    pub(super) fn talk_line(&self, line: &pb::TableLine) -> String {
        use pb::table_line::From;
        let text = safe(&line.text);
        match &line.from {
            Some(From::Table(_)) | None => self.style.dim(&format!("· {text}")),
            Some(_) => {
                let name = safe(&line.name);
                match pb::Reaction::try_from(line.reaction).unwrap_or(pb::Reaction::None) {
                    pb::Reaction::None => format!("{}: {text}", self.style.bold(&name)),
                    r => format!("{} {text} {}", self.style.bold(&name), reaction_mark(r)),
                }
            }
        }
    }

    /// Where the table's waits stand, for `status`: the host's pause (who, since when, until
    /// when), or the wait after a showdown.
    pub(super) fn waits(&self) -> Option<String> {
        let now = SystemTime::now();
        let minutes = |unix_millis: u64, later: bool| {
            let at = SystemTime::UNIX_EPOCH + Duration::from_millis(unix_millis);
            let gap = if later { at.duration_since(now) } else { now.duration_since(at) };
            gap.map_or(0, |d| d.as_secs().div_ceil(60))
        };
        if let Some(p) = &self.table.pause {
            let since = minutes(p.since_unix_millis, false);
            let anyone = minutes(p.anyone_resumes_unix_millis, true);
            let ends = minutes(p.ends_unix_millis, true);
            let who = if anyone == 0 {
                "anyone may `resume` it now".to_string()
            } else {
                format!("the host resumes it (anyone may in {anyone} min)")
            };
            let by = if self
                .table
                .players
                .iter()
                .any(|s| Some(s.seat) == self.key.as_ref().map(|k| k.seat) && s.name == p.by)
            {
                "You".to_string()
            } else {
                safe(&p.by).into_owned()
            };
            return Some(format!(
                "{by} paused the game {since} min ago: no clock runs; {who}. Still paused in {ends} min, the game ends."
            ));
        }
        let secs = self.between_rounds?.duration_since(now).ok()?.as_millis().div_ceil(1000);
        Some(format!(
            "The next round begins in {secs} s: press Enter (or `next`) when you have seen the reveal."
        ))
    }

    /// After a showdown the next round waits until `until`: said once, with how to go on.
    fn between(&mut self, until: Option<SystemTime>) {
        if until.is_none() || until == self.between_rounds {
            self.between_rounds = until;
            return;
        }
        self.between_rounds = until;
        if !self.out.interactive || self.key.is_none() {
            // A script has seen the reveal at once; a spectator holds nobody up.
            self.next_due = self.key.is_some();
            return;
        }
        let secs = until
            .and_then(|t| t.duration_since(SystemTime::now()).ok())
            .map_or(0, |d| d.as_millis().div_ceil(1000));
        self.out.line(self.style.cyan(&format!(
            "The next round begins in {secs} s, or once everyone has seen this: press Enter (or `next`) when you have."
        )));
    }

    pub(super) fn on_update(&mut self, update: Update) {
        match update {
            Update::Snapshot { view, table, rules, seat, .. } => {
                // Our number may have moved (a seat before ours freed): known before the table
                // is shown, so "(you)" marks the right seat.
                if let (Some(key), Some(seat)) = (self.key.as_mut(), seat) {
                    key.seat = u32::try_from(seat).unwrap_or(key.seat);
                }
                self.set_table(table, rules);
                match view {
                    None => self.out.lines(self.waiting_room()),
                    Some(v) => {
                        self.over = v.phase == dudo_rules::game::Phase::Over;
                        self.learn_seat(&v);
                        self.out.lines(render::status(
                            &v,
                            &self.rules,
                            &self.status_names(),
                            self.host(),
                            self.style,
                        ));
                        self.shown = true;
                        self.view = Some(v);
                    }
                }
            }
            Update::Table { table, rules } => self.set_table(table, rules),
            Update::Event { seq, event, text } => {
                // A move held in a call window that another seat's call beat is not played.
                let mine = self.me();
                let beaten = match event.game() {
                    Some(EventKind::CalzaCalled { seat } | EventKind::DudoCalled { seat, .. }) => {
                        Some(*seat).filter(|s| Some(*s) != mine)
                    }
                    _ => None,
                }
                .filter(|_| self.held && self.sent == Some(Sent::Move));
                self.in_flight = false;
                self.answered = None;
                self.held = false;
                self.sent = None;
                self.shown = false;
                if self.prompt.as_ref().is_some_and(|p| p.last_seq.is_none_or(|l| l < seq)) {
                    self.prompt = None;
                }
                match event.game() {
                    Some(EventKind::RoundStarted { wild, .. } | EventKind::SeatLeft { wild, .. }) => {
                        self.wild = *wild;
                    }
                    Some(EventKind::WildsOff) => self.wild = None,
                    Some(EventKind::GameStarted { .. }) => self.over = false,
                    _ => {}
                }
                let lines = render::event_lines(
                    &event,
                    &text,
                    &self.names(),
                    &self.rules,
                    self.me(),
                    self.wild,
                    self.style,
                );
                self.out.lines(lines.into_iter().map(|l| if l.is_empty() { l } else { format!("  {l}") }));
                if let Some(caller) = beaten {
                    let name = self.players.get(caller).cloned().unwrap_or_default();
                    self.out.line(
                        self.style.dim(&format!("  Your held call is not played: {name} called first.")),
                    );
                }
                if let Some(EventKind::GameOver { .. }) = event.game() {
                    self.over = true;
                    if self.hosted {
                        self.out.line("Game over.");
                    } else if self.me() == Some(self.host()) {
                        self.out.line(
                            "Game over. `again` plays another game with the same seats; `quit` leaves.",
                        );
                    } else {
                        self.out.line("Game over. `quit` leaves; the host may start another game.");
                    }
                }
            }
            Update::Prompt(p) => {
                // Asked to play: the wait after a showdown is over.
                self.between_rounds = None;
                if self.answered != Some(p.last_seq) {
                    self.in_flight = false;
                }
                self.learn_seat(&p.view);
                self.on_prompt(p);
            }
            // Where the game stands between prompts, as the server has it.
            Update::Turn { view, last_seq, call_window, next_round, .. } => {
                self.between(next_round);
                self.learn_seat(&view);
                self.say_held(&view);
                self.say_open_to_calls(&view, last_seq, call_window);
                self.view = Some(view);
            }
            Update::Line(line) => self.out.line(self.talk_line(&line)),
            Update::Story { events, lines } => {
                if !events.is_empty() {
                    self.out.line(self.style.dim("The story so far:"));
                }
                for told in dudo_client::in_order(&events, &lines) {
                    match told {
                        dudo_client::Told::Event((_, _, text)) if !text.is_empty() => {
                            self.out.line(self.style.dim(&format!("  {}", safe(text))));
                        }
                        dudo_client::Told::Event(_) => {}
                        dudo_client::Told::Line(line) => self.out.line(self.talk_line(line)),
                    }
                }
            }
            // A line that could not be said: no move of ours was refused.
            Update::Rejected { reason, code, .. }
                if matches!(
                    code.as_str(),
                    "bad_chat" | "muted" | "chat_rate_limited" | "spectators_may_not_chat"
                ) =>
            {
                self.out.line(self.style.red(&format!("Not said: {}", safe(&reason))));
            }
            Update::Rejected { reason, code, .. } => {
                self.in_flight = false;
                self.answered = None;
                self.held = false;
                self.sent = None;
                // The rule's own words already say "… is not allowed" where that is the point.
                let line = if reason.contains("not allowed") {
                    safe(&reason).into_owned()
                } else {
                    format!("Not allowed: {}", safe(&reason))
                };
                self.out.line(self.style.red(&line));
                if code == "rate_limited" {
                    self.out.line("Too fast for this table: you are asked again in a moment.");
                }
            }
            // The server's word that the clock runs low; the countdown's own marks near it
            // are not said again (nor is it, after one of them).
            Update::ClockWarning { left, .. } => {
                let secs = (left.as_millis() as u64).div_ceil(1000).max(1);
                let near: Vec<u64> = COUNTDOWN.iter().copied().filter(|m| m.abs_diff(secs) <= 2).collect();
                if !near.iter().any(|m| self.warned.contains(m)) {
                    self.warned.extend(near);
                    self.out.line(
                        self.style.yellow(&format!("⏳ {secs} s left to call: then the clock calls for you")),
                    );
                }
            }
            // A reset or renumbered seats end the stream on purpose and it comes straight
            // back with a fresh snapshot: no connection was lost.
            Update::Reseated(why) => {
                self.reseated = true;
                self.prompt = None;
                if why == Reseat::Reset {
                    self.reset_noted = true;
                }
                let said = match why {
                    Reseat::Reset if std::mem::take(&mut self.resetting) => None,
                    Reseat::Reset => Some("The host reset the table: back to waiting, same seats and rules."),
                    Reseat::Renumbered => Some("A seat was freed: the seats after it moved down one."),
                    // The seat's first device carries on; one that took it with the link is
                    // refused on reconnecting, and told so then.
                    Reseat::Relinked => {
                        self.unseated = Some(why);
                        None
                    }
                    // Said when the stream ends, just after.
                    Reseat::Removed | Reseat::Left | Reseat::Away => {
                        self.unseated = Some(why);
                        None
                    }
                    Reseat::Other => None,
                };
                if let Some(said) = said {
                    self.out.line(self.style.dim(said));
                }
            }
            // The transport's own words (an h2 error, say) mean nothing at a table.
            Update::Reconnecting { code, .. } => {
                if !self.disconnected {
                    self.disconnected = true;
                    // A table handed to another node on purpose (a drain) is no lost connection.
                    let said = match code.as_deref() {
                        Some("table_moved") => {
                            "The table is moving to another node of the server; back in a moment…"
                        }
                        _ => "Connection to the server lost; reconnecting (for up to two minutes)…",
                    };
                    self.out.line(self.style.dim(said));
                }
            }
            Update::Reconnected => {
                // An answer sent before the cut may not have reached the table (or the table
                // was rebuilt at another node): a prompt it sends again is answered again.
                self.answered = None;
                self.in_flight = false;
                self.offered_for = None;
                let lost = std::mem::take(&mut self.disconnected);
                // Still seated after the host revoked the seat's link (the table said so):
                // this device holds the seat as before.
                self.unseated.take_if(|w| *w == Reseat::Relinked);
                if !std::mem::take(&mut self.reseated) || lost {
                    self.out.line(self.style.dim("Reconnected; carrying on where we were."));
                }
            }
        }
    }

    pub(super) fn on_prompt(&mut self, p: Prompt) {
        self.words.set(render::completions(&p.legal, &self.rules));
        self.warned.clear();
        // Marks the clock is already under when the prompt comes are not said (a 30 s clock
        // starts at 29.9 s: "30 s left" then would say nothing).
        if let Some(left) = p.deadline.and_then(|d| d.duration_since(SystemTime::now()).ok()) {
            self.warned.extend(COUNTDOWN.iter().filter(|&&m| m > left.as_secs()));
        }
        let my_turn = p.view.turn.is_some() && p.view.turn == self.me();
        // The same prompt again (the table settled with nothing new for this seat, as when a
        // call window closes): it is in force, and said once.
        let again = self
            .prompt
            .as_ref()
            .is_some_and(|old| old.last_seq == p.last_seq && old.view.turn == p.view.turn);
        if my_turn && !again {
            // Joining again shows the game in its snapshot: not a second time here.
            if !std::mem::take(&mut self.shown) {
                self.out.line(String::new());
                self.out.lines(render::status(
                    &p.view,
                    &self.rules,
                    &self.status_names(),
                    self.host(),
                    self.style,
                ));
            }
            self.out.line(render::hint(&p.legal, &self.rules, self.style));
            let clock = match p.deadline.and_then(|d| d.duration_since(SystemTime::now()).ok()) {
                Some(left) => format!(" ({} s on the clock)", left.as_secs()),
                None => String::new(),
            };
            self.out.line(self.style.cyan(&format!("Your call{clock}:")));
        } else if !my_turn && self.offered_for != Some(p.last_seq) {
            // A call window: every seat that may call out of turn is asked at once.
            self.offered_for = Some(p.last_seq);
            let offers = self.offers(&p);
            if !offers.is_empty() {
                let left = match p.call_window.and_then(|d| d.duration_since(SystemTime::now()).ok()) {
                    Some(left) => {
                        format!("; the bid stands by itself in {} s", left.as_millis().div_ceil(1000))
                    }
                    None => String::new(),
                };
                self.asked += 1;
                self.offered_at = self.asked;
                self.out.line(self.style.cyan(&format!(
                    "Out of turn: {offers} on the bid in front of you, or `no` to let it stand{left}."
                )));
            }
        }
        self.view = Some(p.view.clone());
        self.prompt = Some(p);
    }

    /// The turn clock: a line at 30, 10 and 5 seconds left.
    pub(super) fn countdown(&mut self) {
        let Some(p) = &self.prompt else { return };
        // A move sent (held in a call window, say) stops the seat's clock.
        if p.view.turn != self.me() || self.in_flight {
            return;
        }
        let Some(left) = p.deadline.and_then(|d| d.duration_since(SystemTime::now()).ok()) else { return };
        let secs = left.as_secs();
        for mark in COUNTDOWN {
            if secs < mark && secs + 2 >= mark && !self.warned.contains(&mark) {
                self.warned.push(mark);
                self.out.line(self.style.yellow(&format!("⏳ {mark} s left to call")));
            }
        }
    }

    pub(super) fn odds(&self) -> Vec<String> {
        let Some(view) = &self.view else { return vec!["No game yet.".into()] };
        if self.rules.family.hand_game().is_some() {
            return vec!["Odds are for the common-hand games.".into()];
        }
        let faces = self.rules.dice.faces;
        let mut lines = Vec::new();
        if let Some((_, bid)) = view.current_bid {
            let o = bid_odds(view, faces, bid);
            lines.push(format!(
                "The bid {bid}: {:.0}% likely true, {:.0}% exactly right (from your seat)",
                o.at_least * 100.0,
                o.exactly * 100.0
            ));
        }
        if let Some(p) = &self.prompt {
            if !p.legal.bids.is_empty() {
                lines.push("From your seat, each face's least bid, and how high it is still more likely true than not:".into());
            }
            for r in &p.legal.bids {
                let b = Bid::new(r.min_quantity, r.face);
                let likely = |q: u16| bid_odds(view, faces, Bid::new(q, r.face)).at_least;
                // The highest quantity at even odds or better (odds only fall as it rises).
                let safe = (r.min_quantity..=r.max_quantity).take_while(|&q| likely(q) >= 0.5).last();
                let up_to = match safe {
                    Some(q) => format!("likely true up to {}", Bid::new(q, r.face)),
                    None => "already more likely false".to_string(),
                };
                lines.push(format!("  {b}: {:.0}% true; {up_to}", likely(r.min_quantity) * 100.0));
            }
        }
        if lines.is_empty() {
            lines.push("No bid to judge yet.".into());
        }
        lines
    }
}

/// How a reaction shows beside its words.
fn reaction_mark(reaction: pb::Reaction) -> &'static str {
    match reaction {
        pb::Reaction::Laugh => "😂",
        pb::Reaction::Liar => "🤥",
        pb::Reaction::Applause => "👏",
        pb::Reaction::Wow => "😮",
        pb::Reaction::GoodGame => "🤝",
        pb::Reaction::None => "",
    }
}
