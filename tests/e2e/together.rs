//! The table as a place people share, through the real server and the Rust client: the
//! wait after a showdown, the host's pause, talk at the table (and its floods), a seat taken
//! back on another device, and a latecomer's story so far.

use std::time::{Duration, Instant};

use dudo_client::{Client, SeatKey, Session, Update};
use dudo_proto::v1 as pb;

/// A table of two people (Ana hosts, Ben joins) on a fresh server, with `request`'s pacing.
async fn two_people(request: pb::CreateTableRequest) -> (Client, SeatKey, Session, Client, SeatKey, Session) {
    let addr = crate::serve().await;
    let ana = Client::connect(&addr).await.unwrap();
    let ana_key =
        ana.create(pb::CreateTableRequest { name: "Ana".into(), seats: 2, ..request }).await.unwrap();
    let ben = Client::connect(&addr).await.unwrap();
    let ben_key = ben.join(&ana_key.info.join_code, "Ben").await.unwrap();
    let (a, b) = (ana.play(&ana_key, None), ben.play(&ben_key, None));
    (ana, ana_key, a, ben, ben_key, b)
}

/// The next update, within 10 s.
async fn next(session: &mut Session) -> Update {
    tokio::time::timeout(Duration::from_secs(10), session.next())
        .await
        .expect("the stream went silent")
        .expect("the session ended")
        .expect("the session failed")
}

/// Answers a prompt with a challenge when it may (a showdown soon), else the least bid.
async fn answer(session: &Session, p: &dudo_client::Prompt) {
    let legal = &p.legal;
    let action = if !legal.dudo.is_empty() {
        dudo_rules::Action::Dudo { target: None }
    } else {
        legal.actions().into_iter().next().expect("a legal action")
    };
    let _ = session.answer(p, action).await;
}

#[tokio::test]
async fn after_a_showdown_the_round_waits_for_its_people_and_their_next_ends_it() {
    let request = pb::CreateTableRequest {
        reveal_pause_millis: Some(20_000),
        move_millis: Some(0),
        ..Default::default()
    };
    let (ana, ana_key, mut a, _ben, _ben_key, mut b) = two_people(request).await;
    ana.start(&ana_key).await.unwrap();
    // Both play; after the first showdown each sees the wait, and nobody is prompted in it.
    let mut waits = [None, None];
    let mut ended = None;
    let started = Instant::now();
    while ended.is_none() && started.elapsed() < Duration::from_secs(30) {
        for (i, s) in [&mut a, &mut b].into_iter().enumerate() {
            let Ok(update) = tokio::time::timeout(Duration::from_millis(200), s.next()).await else {
                continue;
            };
            match update.unwrap().unwrap() {
                Update::Prompt(p) if waits.iter().any(Option::is_some) => {
                    assert!(waits.iter().all(Option::is_some), "prompted before everyone said next");
                    ended = Some((i, p));
                    break;
                }
                Update::Prompt(p) => answer(s, &p).await,
                Update::Turn { next_round: Some(until), ready, .. } if waits[i].is_none() => {
                    assert!(ready.is_empty());
                    let left = until.duration_since(std::time::SystemTime::now()).unwrap_or_default();
                    assert!(left > Duration::from_secs(15), "the wait is the table's: {left:?}");
                    waits[i] = Some(Instant::now());
                    // Each says "next"; the round goes on once both have, long before 20 s.
                    s.next_round().await.unwrap();
                }
                _ => {}
            }
        }
    }
    let (_, _) = ended.expect("the next round began once both said next");
    let waited = waits.iter().flatten().map(Instant::elapsed).max().unwrap();
    assert!(
        waited < Duration::from_secs(5),
        "the round went on at the last next, not at the wait's end: {waited:?}"
    );
}

#[tokio::test]
async fn the_hosts_pause_stops_the_clock_and_holds_moves_until_resumed() {
    // A 1 s move clock: a pause of 3 s would time a seat out twice were it running.
    let request = pb::CreateTableRequest {
        move_millis: Some(1_000),
        reveal_pause_millis: Some(0),
        ..Default::default()
    };
    let (ana, ana_key, mut a, ben, ben_key, mut b) = two_people(request).await;
    ana.start(&ana_key).await.unwrap();
    let info = ana.pause(&ana_key).await.unwrap();
    let pause = info.pause.expect("the table says it is paused");
    assert_eq!(pause.by, "Ana");
    // Ben, not the host, may not resume it yet.
    let refused = ben.resume(&ben_key).await.unwrap_err();
    assert_eq!(refused.refusal_code(), Some("resume_not_yet"));
    tokio::time::sleep(Duration::from_secs(3)).await;
    // Nobody's clock ran: no move was played for anyone, and a move now is refused `paused`.
    let mut prompt = None;
    let quiet = Instant::now();
    while quiet.elapsed() < Duration::from_millis(500) {
        for s in [&mut a, &mut b] {
            if let Ok(Some(Ok(u))) = tokio::time::timeout(Duration::from_millis(50), s.next()).await {
                if let Update::Event { event, .. } = &u {
                    assert!(
                        !matches!(event, dudo_proto::TableEvent::TurnTimedOut { .. }),
                        "a clock ran in the pause"
                    );
                }
                if let Update::Prompt(p) = u {
                    prompt = Some(p);
                }
            }
        }
    }
    let paused = ben.table(&ben_key.table).await.unwrap();
    assert!(paused.pause.is_some());
    // A move sent meanwhile, by either seat, is refused as the pause's.
    let bid = dudo_rules::Action::Bid(dudo_rules::Bid::new(1, 2));
    a.act(bid.clone()).await.unwrap();
    b.act(bid).await.unwrap();
    let mut codes = Vec::new();
    let until = Instant::now() + Duration::from_secs(2);
    while codes.len() < 2 && Instant::now() < until {
        for s in [&mut a, &mut b] {
            if let Ok(Some(Ok(Update::Rejected { code, .. }))) =
                tokio::time::timeout(Duration::from_millis(100), s.next()).await
            {
                codes.push(code);
            }
        }
    }
    assert_eq!(codes, ["paused", "paused"]);
    ana.resume(&ana_key).await.unwrap();
    assert!(ana.table(&ana_key.table).await.unwrap().pause.is_none());
    // The game goes on: someone is prompted.
    let mut prompted = prompt.is_some();
    let until = Instant::now() + Duration::from_secs(5);
    while !prompted && Instant::now() < until {
        for s in [&mut a, &mut b] {
            if let Ok(Some(Ok(Update::Prompt(_)))) =
                tokio::time::timeout(Duration::from_millis(100), s.next()).await
            {
                prompted = true;
            }
        }
    }
    assert!(prompted, "play went on after the resume");
}

#[tokio::test]
async fn talk_reaches_the_table_a_flood_waits_and_spectators_speak_only_when_allowed() {
    let request = pb::CreateTableRequest { reveal_pause_millis: Some(0), ..Default::default() };
    let (ana, ana_key, _a, _ben, _ben_key, mut b) = two_people(request).await;
    a_line_arrives(&ana, &ana_key, &mut b).await;
    // A flood: five at once, then a wait, said with its code and how long.
    let mut refused = None;
    for n in 0..8 {
        if let Err(e) =
            ana.say(Some(&ana_key), &ana_key.table, "", &format!("spam {n}"), pb::Reaction::None).await
        {
            refused = Some(e);
            break;
        }
    }
    let refused = refused.expect("a flood is refused");
    assert_eq!(refused.refusal_code(), Some("chat_rate_limited"));
    // Bad lines name their field; the game state is untouched.
    let long = "x".repeat(201);
    let bad = ana.say(Some(&ana_key), &ana_key.table, "", &long, pb::Reaction::None).await.unwrap_err();
    assert!(bad.to_string().starts_with("text: 201 characters"), "{bad}");
    let escape =
        ana.say(Some(&ana_key), &ana_key.table, "", "\u{1b}[2J", pb::Reaction::None).await.unwrap_err();
    assert_eq!(escape.refusal_code(), Some("bad_chat"));
    // A spectator, at a table that does not let them talk.
    let spectator = ana.say(None, &ana_key.table, "Eve", "hello", pb::Reaction::None).await.unwrap_err();
    assert_eq!(spectator.refusal_code(), Some("spectators_may_not_chat"));
    // Muted, Ben is refused; the table says so.
    ana.mute(&ana_key, 1, true).await.unwrap();
    let muted = _ben.say(Some(&_ben_key), &ana_key.table, "", "hi", pb::Reaction::None).await.unwrap_err();
    assert_eq!(muted.refusal_code(), Some("muted"));
}

async fn a_line_arrives(ana: &Client, key: &SeatKey, ben: &mut Session) {
    // Ben's stream is open first: what is said then comes as it is said.
    while !matches!(next(ben).await, Update::Snapshot { .. }) {}
    ana.say(Some(key), &key.table, "", "good luck!", pb::Reaction::None).await.unwrap();
    ana.say(Some(key), &key.table, "", "", pb::Reaction::Laugh).await.unwrap();
    let mut heard = Vec::new();
    while heard.len() < 2 {
        if let Update::Line(line) = next(ben).await
            && line.name == "Ana"
        {
            heard.push(line.text);
        }
    }
    assert_eq!(heard, ["good luck!", "laughs"]);
}

#[tokio::test]
async fn a_seat_is_taken_back_on_another_device_until_the_host_revokes_its_link() {
    let request =
        pb::CreateTableRequest { reveal_pause_millis: Some(0), move_millis: Some(0), ..Default::default() };
    let (ana, ana_key, _a, ben, ben_key, _b) = two_people(request).await;
    let link = ben.seat_link(&ben_key).await.unwrap();
    assert!(
        link.link.contains("/t/") && link.link.ends_with(&format!("#rejoin={}", link.rejoin)),
        "{}",
        link.link
    );
    // Ben's phone: a new client, the link alone.
    let phone = Client::connect(ben.addr()).await.unwrap();
    let phone_key = phone.rejoin(&ben_key.table, &link.link).await.unwrap();
    assert_eq!(phone_key.seat, 1);
    assert_ne!(phone_key.token, ben_key.token);
    let info = ana.table(&ana_key.table).await.unwrap();
    assert_eq!(info.players[1].linked_devices, 1);
    // A guessed link is refused; a stolen one is revoked by the host.
    let guess = phone.rejoin(&ben_key.table, "not-a-link").await.unwrap_err();
    assert_eq!(guess.refusal_code(), Some("no_such_link"));
    ana.revoke_seat_link(&ana_key, 1).await.unwrap();
    let gone = phone.seat_link(&phone_key).await.unwrap_err();
    assert_eq!(gone.code(), Some(dudo_client::Code::Unauthenticated));
    let again = phone.rejoin(&ben_key.table, &link.link).await.unwrap_err();
    assert_eq!(again.refusal_code(), Some("no_such_link"));
    // Ben's first device still holds the seat.
    assert!(ben.seat_link(&ben_key).await.is_ok());
}

#[tokio::test]
async fn a_latecomer_sees_the_story_so_far_then_the_live_game() {
    let addr = crate::serve().await;
    let host = Client::connect(&addr).await.unwrap();
    let request =
        pb::CreateTableRequest { name: "Ana".into(), seats: 3, host_only: true, ..Default::default() };
    let key = host.create(request).await.unwrap();
    for _ in 0..3 {
        host.add_bot(&key, "odds").await.unwrap();
    }
    host.say(Some(&key), &key.table, "", "welcome", pb::Reaction::None).await.ok();
    host.start(&key).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut watcher = host.watch(&key.table, None);
    let mut story = None;
    for _ in 0..5 {
        if let Update::Story { events, lines } = next(&mut watcher).await {
            story = Some((events, lines));
            break;
        }
    }
    let (events, lines) = story.expect("a story so far after the snapshot");
    assert!(!events.is_empty(), "the game's events so far");
    assert!(events.iter().all(|(_, _, text)| !text.is_empty()), "each in words");
    assert!(lines.iter().any(|l| l.text.contains("added")), "the table's news too: {lines:?}");
}

#[tokio::test]
async fn the_hosts_calls_are_paced_and_name_what_they_refuse() {
    let addr = crate::serve().await;
    let ana = Client::connect(&addr).await.unwrap();
    let request = pb::CreateTableRequest {
        name: "Ana".into(),
        seats: 3,
        reveal_pause_millis: Some(0),
        move_millis: Some(0),
        spectators_chat: true,
        ..Default::default()
    };
    let key = ana.create(request).await.unwrap();
    let ben = Client::connect(&addr).await.unwrap();
    let ben_key = ben.join(&key.info.join_code, "Ben").await.unwrap();
    let info = ana.add_bot(&key, "odds").await.unwrap();
    // Muting a bot names the bot; letting speak one who may changes nothing, and says nothing.
    let bot = ana.mute(&key, 2, true).await.unwrap_err();
    assert_eq!(bot.refusal_code(), Some("bot_seat"));
    assert!(bot.to_string().contains("a bot"), "{bot}");
    ana.mute(&key, 1, false).await.unwrap();
    // A spectator speaks under a name of its own: not a bot's without its kind, not the host's.
    let bare = info.players[2].name.split(" (").next().unwrap_or_default().to_string();
    for name in [bare.as_str(), "The host", "the table", "Ana (host)", "odds"] {
        let refused = ana.say(None, &key.table, name, "hi", pb::Reaction::None).await.unwrap_err();
        assert_eq!(refused.refusal_code(), Some("bad_name"), "{name}: {refused}");
    }
    // Zalgo and private-use characters are not plain text; emoji are.
    let zalgo = "Z\u{0300}\u{0301}\u{0302}\u{0303}\u{0304}";
    let refused = ana.say(Some(&key), &key.table, "", zalgo, pb::Reaction::None).await.unwrap_err();
    assert_eq!(refused.refusal_code(), Some("bad_chat"));
    ana.say(Some(&key), &key.table, "", "\u{2764}\u{FE0F}", pb::Reaction::None).await.unwrap();
    // Ben's whole link pasted where a table goes takes his seat back, not a new one.
    let link = ben.seat_link(&ben_key).await.unwrap();
    let phone = Client::connect(&addr).await.unwrap();
    let phone_key = phone.join(&link.link, "Ben's phone").await.unwrap();
    assert_eq!(phone_key.seat, 1);
    // Cut short, the link is refused as a link, and never echoed back.
    let cut = format!("{}#rejoin=", link.link.split('#').next().unwrap_or_default());
    let refused = phone.join(&cut, "Mallory").await.unwrap_err();
    assert_eq!(refused.refusal_code(), Some("no_such_link"), "{refused}");
    let bare = format!("{}#rejoin={}", key.info.join_code, link.rejoin);
    assert_eq!(phone.join(&bare, "x").await.unwrap().seat, 1, "the code and the fragment do too");
    assert_eq!(ana.table(&key.table).await.unwrap().players.len(), 3, "no seat was added");
    // Pausing and resuming in a loop is paced, with how long to wait.
    ana.start(&key).await.unwrap();
    let mut refused = None;
    for n in 0..20 {
        let call = if n % 2 == 0 { ana.pause(&key).await } else { ana.resume(&key).await };
        if let Err(e) = call {
            refused = Some((n, e));
            break;
        }
    }
    let (n, refused) = refused.expect("a pause loop is refused");
    assert!(n >= 5, "a few at once are fine: refused after {n}");
    assert_eq!(refused.refusal_code(), Some("rate_limited"), "{refused}");
    assert!(refused.to_string().contains("pausing"), "{refused}");
}
