//! Who plays whom: the matchmaker's pass that fills each pool's tables by rating (a gap that
//! widens with the longest wait, never one account twice at a table, the pool's bots for the
//! seats nobody takes once its wait is over), and the tables it has the node make.

use std::time::Instant;

use rand::Rng;
use rand::seq::SliceRandom;

use super::*;
use crate::refusal::Kind;

impl<T: ServerTables> Matchmaker<T> {
    pub(crate) fn match_all(&mut self) {
        let now = Instant::now();
        // Timed only when someone waits: an empty pass (a node not running the ladder, say)
        // would fill the histogram with nothing.
        let _timed = self.queues.iter().any(|q| !q.is_empty()).then(|| Timed(now));
        self.benched.retain(|_, until| *until > now);
        for pool in 0..self.pools.len() {
            let before = self.queues[pool].len();
            self.queues[pool].retain(|e| !e.tx.is_closed());
            // Someone left: the others' count of who waits is news.
            self.queue_changed[pool] |= self.queues[pool].len() != before;
            // Who is ready is worked out once a pass and kept up as tables are made: a
            // pass that makes a hundred tables from a thousand entrants sorts once, not a
            // hundred times.
            let mut ready = self.ready(pool);
            // An anchor that found no table cannot find one later in the pass (those near it
            // only leave, and its wait is the pass's): each is tried once, so a crowd nobody
            // can match costs a pass one look each, not one per table made.
            let mut tried = vec![false; self.queues[pool].len()];
            while let Some(table) = self.next_table(pool, &ready, &mut tried, now) {
                for &i in &table.0 {
                    if let Some(r) = ready.iter_mut().find(|r| r.index == i) {
                        r.playing += 1;
                    }
                    if let Some(left) = self.queues[pool].get_mut(i).and_then(|e| e.games_left.as_mut()) {
                        *left = left.saturating_sub(1);
                    }
                }
                let queue = &self.queues[pool];
                ready.retain(|r| r.playing < queue[r.index].wants && queue[r.index].games_left != Some(0));
                if table.0.iter().any(|&i| ready.iter().any(|r| r.index == i)) {
                    // Someone seated wants more games: fewest in play still goes first.
                    ready.sort_by_key(|r| (r.playing, queue[r.index].since));
                }
                self.make(pool, table);
            }
        }
        if now >= self.news_due {
            self.news_due = now + QUEUE_NEWS;
            for pool in 0..self.pools.len() {
                if std::mem::take(&mut self.queue_changed[pool]) {
                    self.tell_queue(pool);
                }
            }
        }
    }

    /// The entrants of a pool who may take a seat now, fewest games in play first, then
    /// longest wait.
    pub(crate) fn ready(&self, pool: usize) -> Vec<Ready> {
        let queue = &self.queues[pool];
        let mut ready: Vec<Ready> = queue
            .iter()
            .enumerate()
            .map(|(index, e)| Ready { index, playing: self.playing(pool, &e.account.id) })
            .filter(|r| {
                let e = &queue[r.index];
                self.wants_a_seat(pool, e) && !e.tx.is_closed() && !self.benched.contains_key(&e.account.id)
            })
            .collect();
        ready.sort_by_key(|r| (r.playing, queue[r.index].since));
        ready
    }

    /// The next table to make in a pool from its `ready` entrants: entrants (by index in
    /// the queue) and the bots that fill it.
    ///
    /// Whoever has waited first goes first: entrants are taken in order of fewest games in
    /// play, then longest wait, each in turn the anchor of a table of others drawn by lot
    /// from those near its rating (within half the gap its wait allows either side, so a
    /// table spans at most the gap), fewest games in play first. An anchor that finds too
    /// few may be filled with the pool's bots once it has waited `fill_after_seconds`;
    /// otherwise the next anchor tries, so one outlier never holds up the rest. An anchor
    /// that finds no table is marked in `tried` (by index in the queue) and not tried again.
    pub(crate) fn next_table(
        &self,
        pool: usize,
        ready: &[Ready],
        tried: &mut [bool],
        now: Instant,
    ) -> Option<(Vec<usize>, Vec<String>)> {
        let p = &self.pools[pool];
        let seats = p.seats as usize;
        let queue = &self.queues[pool];
        let waited = |i: usize| now.saturating_duration_since(queue[i].since).as_secs_f64();
        // Who may not sit together: one account twice, and in a pool of people two
        // accounts sharing an address (one person's puppets, whose losses feed its rating).
        let people = p.players == super::pools::Players::People;
        let apart =
            |a: &Entrant, b: &Entrant| a.account.id == b.account.id || (people && a.shares_an_address(b));
        let mut near: Vec<Ready> = Vec::with_capacity(ready.len());
        let mut rng = rand::rng();
        for anchor in ready {
            if tried.get(anchor.index).copied().unwrap_or(true) {
                continue;
            }
            let reach = (GAP + GAP_PER_SECOND * waited(anchor.index)) / 2.0;
            let mu = queue[anchor.index].mu;
            // Those within reach, in `ready`'s order: grouped by games in play.
            near.clear();
            near.extend(
                ready.iter().filter(|r| r.index != anchor.index && (queue[r.index].mu - mu).abs() <= reach),
            );
            let mut chosen = vec![anchor.index];
            // By lot within each group (in arrival order, players who came together would
            // only ever meet each other), never one account twice.
            let mut group = 0;
            while chosen.len() < seats && group < near.len() {
                let playing = near[group].playing;
                let end = group + near[group..].iter().take_while(|r| r.playing == playing).count();
                let mut left = end - group;
                while chosen.len() < seats && left > 0 {
                    let k = group + rng.random_range(0..left);
                    let drawn = near[k].index;
                    near.swap(k, group + left - 1);
                    left -= 1;
                    if !chosen.iter().any(|&c| apart(&queue[c], &queue[drawn])) {
                        chosen.push(drawn);
                    }
                }
                group = end;
            }
            if chosen.len() == seats {
                return Some((chosen, Vec::new()));
            }
            if !p.bots.is_empty() && waited(anchor.index) >= f64::from(p.fill_after_seconds) {
                // The pool's bots in its order from one drawn by lot: taken always from the
                // first, a two-seat pool's lone entrant only ever met the first bot listed.
                let first = rng.random_range(0..p.bots.len());
                let bots = p.bots.iter().cycle().skip(first).take(seats - chosen.len()).cloned().collect();
                return Some((chosen, bots));
            }
            tried[anchor.index] = true;
        }
        None
    }

    pub(crate) fn make(&mut self, pool: usize, (chosen, bots): (Vec<usize>, Vec<String>)) {
        let mut seats: Vec<(LadderSeat, Option<Chosen>)> = Vec::new();
        let mut tokens = Vec::new();
        for &i in &chosen {
            let e = &self.queues[pool][i];
            if let Some(p) = self.playing.get_mut(pool) {
                *p.entry(e.account.id.clone()).or_default() += 1;
            }
            let chosen = Chosen { entrant: e.id, account: e.account.id.clone(), name: e.name.clone() };
            seats.push((
                LadderSeat::Account { account: e.account.clone(), name: e.name.clone() },
                Some(chosen.clone()),
            ));
            tokens.push((chosen, e.token.clone()));
        }
        seats.extend(bots.into_iter().map(|b| (LadderSeat::Bot(b), None)));
        // Seat order by lot (the server hosts the table without a seat).
        seats.shuffle(&mut rand::rng());
        let (tables, tx, p) = (self.tables.clone(), self.tx.clone(), self.pools[pool].clone());
        tokio::spawn(async move {
            let seated: Vec<Option<Chosen>> = seats.iter().map(|(_, e)| e.clone()).collect();
            // A token revoked or an account suspended since it entered: that entrant's stream
            // ends, and the others wait for the next table.
            let mut stale = Vec::new();
            let mut why = None;
            for (chosen, token) in tokens {
                match tables.account_of_api_token(&token).await {
                    Err(e) if matches!(e.kind(), Kind::Unauthenticated | Kind::PermissionDenied) => {
                        stale.push(chosen);
                        why = Some(e);
                    }
                    _ => {}
                }
            }
            if let Some(why) = why {
                let _ = tx.send(Command::Refused { pool, entrants: stale.clone(), why }).await;
                let rest = seated
                    .into_iter()
                    .flatten()
                    .filter(|c| !stale.iter().any(|s| s.entrant == c.entrant))
                    .map(Some)
                    .collect();
                let made = Err("a player's token no longer answers".to_string());
                let _ = tx.send(Command::Made { pool, made, seated: rest }).await;
                return;
            }
            let seats = seats.into_iter().map(|(s, _)| s).collect();
            let made = match p.server_table() {
                Ok(order) => tables.make(order, seats).await,
                Err(e) => Err(e),
            }
            .map_err(|e| e.message().to_string());
            let _ = tx.send(Command::Made { pool, made, seated }).await;
        });
    }
}

/// Records how long a matchmaking pass took, when dropped.
pub(crate) struct Timed(Instant);

impl Drop for Timed {
    fn drop(&mut self) {
        metrics::histogram!("dudo_matchmaker_seconds").record(self.0.elapsed().as_secs_f64());
    }
}
