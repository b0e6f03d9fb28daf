//! A rule set crosses the wire and the journal by the protocol's descriptor: random valid
//! rule sets, not only the presets, come back from both exactly as they went.

use std::collections::BTreeSet;
use std::sync::Arc;

use dudo_proto::convert::{self, SettingTakes};
use dudo_proto::v1 as pb;
use dudo_rules::presets;
use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::table::journal::Input;

/// A value for a setting: an option of a choice, a count from small to huge, a name.
fn random_value(takes: &SettingTakes, rng: &mut StdRng) -> String {
    match takes {
        SettingTakes::Choice(options) => options[rng.random_range(..options.len())].clone(),
        SettingTakes::Count => match rng.random_range(0..4) {
            0 => rng.random_range(0..=3u32).to_string(),
            1 => rng.random_range(0..=12u32).to_string(),
            2 => rng.random_range(0..=100u32).to_string(),
            _ => rng.random::<u32>().to_string(),
        },
        SettingTakes::Text => {
            let len = rng.random_range(0..12);
            (0..len).map(|_| char::from(rng.random_range(b'a'..=b'z'))).collect()
        }
    }
}

#[test]
fn ten_thousand_random_rule_sets_cross_the_wire_and_the_journal_unchanged() {
    let settings = convert::rule_settings();
    assert!(settings.len() > 50, "the wire's rule set has {} settings", settings.len());
    let mut rng = StdRng::seed_from_u64(48);
    let (mut valid, mut tries) = (0, 0);
    let mut exercised = BTreeSet::new();
    while valid < 10_000 {
        tries += 1;
        assert!(tries < 200_000, "only {valid} valid rule sets in {tries} tries");
        let name = presets::NAMES[rng.random_range(..presets::NAMES.len())];
        let Some(mut rules) = presets::by_name(name) else { panic!("no preset {name}") };
        let mut changed = Vec::new();
        for _ in 0..rng.random_range(1..=6) {
            let setting = &settings[rng.random_range(..settings.len())];
            let value = random_value(&setting.takes, &mut rng);
            if let Ok(next) = presets::with_setting(rules.clone(), &setting.path, &value) {
                rules = next;
                changed.push(setting.path.clone());
            }
        }
        if changed.is_empty() {
            continue;
        }
        valid += 1;
        exercised.extend(changed);

        let wire = convert::rules_to_wire(&rules);
        assert_eq!(convert::rules_from_wire(&wire).as_ref(), Ok(&rules), "over the wire");
        // As the store keeps a journal entry: its bytes.
        let entry = Input::RulesChanged { rules: Arc::new(rules.clone()) }.to_entry();
        let bytes = pb::JournalEntry { entry: Some(entry), banks_millis: Vec::new() }.encode_to_vec();
        let read = pb::JournalEntry::decode(bytes.as_slice()).map_err(|e| e.to_string());
        match read.and_then(|entry| Input::from_entry(&entry).map_err(|e| e.to_string())) {
            Ok(Input::RulesChanged { rules: back }) => assert_eq!(*back, rules, "through the journal"),
            other => panic!("the journal gave back {other:?}"),
        }
    }
    // Each setting took part in some valid rule set: the round trips covered every field.
    let never: Vec<&str> =
        settings.iter().map(|s| s.path.as_str()).filter(|p| !exercised.contains(*p)).collect();
    assert!(never.is_empty(), "never set in a valid rule set: {never:?}");
}
