//! The Fibbing Dice manual's worked example, rounds one to eleven, as a script with its
//! expected output.

use dudo_rules::{Bid, EventKind};

use crate::common::ok;

fn example() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scripts/fibbing-example.json"))
        .unwrap()
}

#[test]
fn every_round_goes_as_the_manual_tells_it() {
    let (game, events) = ok(&example());
    let settled: Vec<(usize, usize)> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::RoundSettled { winner, loser, .. } => Some((winner, loser)),
            _ => None,
        })
        .collect();
    // Seats: Bob 0, Alice 1, Roger 2. Losers of rounds one to eleven, as the text gives them
    // (round six is Roger's Calza, which Roger wins).
    let losers: Vec<usize> = settled.iter().map(|s| s.1).collect();
    assert_eq!(losers, vec![1, 2, 1, 2, 0, 0, 1, 0, 0, 2, 0]);
    assert_eq!(settled[5].0, 2);
    let starters: Vec<usize> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::RoundStarted { starter, .. } => Some(starter),
            _ => None,
        })
        .collect();
    // Alice, Alice, Roger, Alice, Roger, Bob, Roger, Roger, Bob, Bob, Roger.
    assert_eq!(starters, vec![1, 1, 2, 1, 2, 0, 2, 2, 0, 0, 2]);
    let palifico: Vec<Vec<usize>> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RoundStarted { palifico, .. } => Some(palifico.clone()),
            _ => None,
        })
        .collect();
    // Rounds four (Alice) and five (Roger) are Palifico; round ten (two players) is not.
    assert_eq!(palifico[3], vec![1]);
    assert_eq!(palifico[4], vec![2]);
    assert!(palifico.iter().enumerate().all(|(i, p)| i == 3 || i == 4 || p.is_empty()));
    assert!(events.iter().any(|e| e.kind == EventKind::BidMade { seat: 1, bid: Bid::new(2, 6) }));
    assert_eq!(game.standings(), vec![2, 0, 1]);
}

#[test]
fn the_worked_example_prints_the_expected_events() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scripts/fibbing-example.json");
    let (_, events) = ok(&std::fs::read_to_string(path).unwrap());
    let mut lines = String::new();
    for (seq, e) in events.iter().enumerate() {
        let mut v = serde_json::to_value(e).unwrap();
        v.as_object_mut().unwrap().insert("seq".into(), seq.into());
        lines.push_str(&serde_json::to_string(&v).unwrap());
        lines.push('\n');
    }
    let expected_path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scripts/fibbing-example.expected.jsonl");
    if std::env::var_os("DUDO_BLESS").is_some() {
        std::fs::write(expected_path, &lines).unwrap();
    }
    let expected = std::fs::read_to_string(expected_path).unwrap();
    assert!(lines == expected, "output differs from {expected_path}; run with DUDO_BLESS=1 to update");
}
