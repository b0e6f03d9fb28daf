//! Every event a stream is sent carries its line in words, made by the server's engine for
//! the audience it is for: a seat reads its own dice said to it, and nobody else reads them.

use super::*;

#[test]
fn every_event_of_every_preset_has_words_for_every_viewer() {
    for name in dudo_rules::presets::NAMES {
        let rules = dudo_rules::presets::by_name(name).unwrap();
        let seats = 3.clamp(usize::from(rules.players.min), usize::from(rules.players.max));
        let hand_game = rules.family.hand_game();
        let clock = Clock::new(Duration::from_secs(1), Duration::ZERO);
        let pacing = Pacing { clock: Some(clock), ..Pacing::default() };
        let length = GameLength { max_moves: 300, ..GameLength::default() };
        let mut core = TableCore::new(rules, setup(seats, pacing, false, length), [5; 32], at(0));
        person(&mut core, "ana", at(0));
        for seed in 1..seats {
            bot(&mut core, "odds", seed as u64, at(0));
        }
        let ana = watch(&mut core, Some("ana"), None, at(0));
        let spectator = watch(&mut core, None, None, at(0));
        start(&mut core, at(1));
        // Ana's clock plays each of her moves, and her call windows close on her.
        for _ in 0..10_000 {
            if core.game().is_some_and(dudo_rules::Game::is_over) {
                break;
            }
            let (deadline, window) = (core.deadline(), core.window_closes());
            let Some(due) = deadline.into_iter().chain(window).min() else { break };
            let now = Now { wall: 1_700_000_000_000 + due.as_millis() as i64, mono: due };
            if window == Some(due) {
                core.close_window(now);
            } else {
                core.time_out(now);
            }
            bots_play_on(&mut core, now);
        }
        core.deliver();
        assert!(core.game().is_some_and(dudo_rules::Game::is_over), "{name}: the game ends");
        let (ana, spectator) = (ana.events(), spectator.events());
        for (who, events) in [("ana", &ana), ("a spectator", &spectator)] {
            assert!(events.len() > 10, "{name}: {who} saw the game");
            for e in events.iter() {
                assert!(
                    !e.text.trim().is_empty(),
                    "{name}: {who} was sent event {} without words: {:?}",
                    e.seq,
                    e.kind
                );
            }
        }
        let yours = |events: &[pb::Event]| events.iter().filter(|e| e.text.starts_with("Your dice:")).count();
        if hand_game.is_none() {
            assert!(yours(&ana) > 0, "{name}: Ana is told her dice");
        }
        assert_eq!(yours(&spectator), 0, "{name}: a spectator is told nobody's dice as theirs");
    }
}
