//! Rule sets, both ways, read off the wire type's descriptor: the engine's serde form of a
//! `dudo_rules::RuleSet` and `dudo.v1.RuleSet` have the same fields by the same names (a
//! section is a message, an engine enum's variant `more_dice` is the wire's
//! `BIDDING_SYSTEM_MORE_DICE`, a rule with data such as `game_end` a oneof), so the conversion
//! walks the descriptor and never lists a field. A knob added to the engine and the proto
//! is converted with nothing written here; one added to only one of them fails the round
//! trip, which the tests make for every preset and thousands of random rule sets.

use std::borrow::Cow;
use std::sync::LazyLock;

use prost_reflect::Value as Wire;
use prost_reflect::{
    DescriptorPool, DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor, ReflectMessage,
};
use serde_json::Value as Json;

use super::*;

/// `dudo.v1.RuleSet`'s descriptor, from the descriptor set the build compiled.
static RULE_SET: LazyLock<Option<MessageDescriptor>> = LazyLock::new(|| {
    DescriptorPool::decode(crate::FILE_DESCRIPTOR_SET).ok()?.get_message_by_name("dudo.v1.RuleSet")
});

fn descriptor() -> Result<&'static MessageDescriptor, ConvertError> {
    RULE_SET.as_ref().ok_or_else(|| bad("rules", "the protocol's descriptor has no dudo.v1.RuleSet"))
}

/// A rule set as it goes on the wire: every field of the engine's.
pub fn rules_to_wire(x: &r::RuleSet) -> pb::RuleSet {
    // Only a field the engine has and the wire lacks can fail, and the tests round-trip every
    // field; a table's rules are checked to survive the trip before it keeps them.
    to_wire(x).unwrap_or_default()
}

/// A rule set's how-to-play (`dudo_rules::how_to_play`), as TableInfo and Preset carry it.
pub fn how_to_play_to_wire(x: &r::RuleSet) -> Vec<pb::RuleNote> {
    dudo_rules::how_to_play::how_to_play(x)
        .into_iter()
        .map(|n| pb::RuleNote { topic: n.topic.to_string(), text: n.text })
        .collect()
}

fn to_wire(x: &r::RuleSet) -> Result<pb::RuleSet, ConvertError> {
    let json = serde_json::to_value(x).map_err(|e| bad("rules", e.to_string()))?;
    let message = message_to_wire(descriptor()?, &json, "")?;
    message.transcode_to().map_err(|e| bad("rules", e.to_string()))
}

/// A rule set from the wire, validated. Sections (messages) left out take the engine's defaults;
/// top-level numbers cannot be told from 0 on the wire, so they are read as sent: a client
/// sends a whole rule set (a preset's, as `ListPresets` gives it) and changes what it means to.
pub fn rules_from_wire(x: &pb::RuleSet) -> Result<r::RuleSet, ConvertError> {
    let message = DynamicMessage::decode(descriptor()?.clone(), prost::Message::encode_to_vec(x).as_slice())
        .map_err(|e| bad("rules", e.to_string()))?;
    let json = message_from_wire(&message, "")?.unwrap_or(Json::Object(Default::default()));
    dudo_rules::presets::from_value(json).map_err(|e| ConvertError { field: e.field, problem: e.problem })
}

fn at(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_string() } else { format!("{path}.{name}") }
}

/// What the wire calls an enum's values: `BiddingSystem` names them `BIDDING_SYSTEM_…`.
fn value_prefix(e: &EnumDescriptor) -> String {
    let mut prefix = String::new();
    for (i, c) in e.name().chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            prefix.push('_');
        }
        prefix.push(c.to_ascii_uppercase());
    }
    prefix.push('_');
    prefix
}

fn message_to_wire(
    desc: &MessageDescriptor,
    json: &Json,
    path: &str,
) -> Result<DynamicMessage, ConvertError> {
    let mut message = DynamicMessage::new(desc.clone());
    let not_on_wire = |name: &str| bad_owned(at(path, name), "the wire has no such field");
    match json {
        Json::Object(fields) => {
            for (name, value) in fields {
                let field = desc.get_field_by_name(name).ok_or_else(|| not_on_wire(name))?;
                let wire = value_to_wire(&field, value, &at(path, name))?;
                message.set_field(&field, wire);
            }
        }
        // A variant without data of a rule that has some (`game_end = "single_round"`): the
        // oneof's field of that name, empty.
        Json::String(name) => {
            let field = desc.get_field_by_name(name).ok_or_else(|| not_on_wire(name))?;
            let Kind::Message(empty) = field.kind() else {
                return Err(bad_owned(at(path, name), "has data on the wire"));
            };
            message.set_field(&field, Wire::Message(DynamicMessage::new(empty)));
        }
        other => return Err(bad_owned(path.to_string(), format!("{other} is not a section"))),
    }
    Ok(message)
}

fn value_to_wire(field: &FieldDescriptor, json: &Json, path: &str) -> Result<Wire, ConvertError> {
    let number =
        || json.as_u64().ok_or_else(|| bad_owned(path.to_string(), format!("{json} is not a count")));
    Ok(match field.kind() {
        Kind::Message(desc) => Wire::Message(message_to_wire(&desc, json, path)?),
        Kind::Enum(e) => {
            let variant = json.as_str().ok_or_else(|| bad_owned(path.to_string(), "not a name"))?;
            let name = format!("{}{}", value_prefix(&e), variant.to_ascii_uppercase());
            let value = e
                .get_value_by_name(&name)
                .ok_or_else(|| bad_owned(path.to_string(), format!("the wire has no {name}")))?;
            Wire::EnumNumber(value.number())
        }
        Kind::Uint32 => {
            Wire::U32(u32::try_from(number()?).map_err(|_| bad_owned(path.to_string(), "too big"))?)
        }
        Kind::Uint64 => Wire::U64(number()?),
        Kind::String => Wire::String(json.as_str().unwrap_or_default().to_string()),
        Kind::Bool => Wire::Bool(json.as_bool().unwrap_or_default()),
        other => return Err(bad_owned(path.to_string(), format!("a {other:?} field is not a rule"))),
    })
}

/// The engine's serde form of a wire message; none for a rule with data whose oneof is unset
/// (the engine's default).
fn message_from_wire(message: &DynamicMessage, path: &str) -> Result<Option<Json>, ConvertError> {
    let desc = message.descriptor();
    // A message that is all one oneof is a rule with data (`game_end`).
    if let Some(oneof) =
        desc.oneofs().next().filter(|_| desc.fields().all(|f| f.containing_oneof().is_some()))
    {
        let Some(field) = oneof.fields().find(|f| message.has_field(f)) else { return Ok(None) };
        let value = message.get_field(&field);
        return Ok(Some(match (field.kind(), value.as_ref()) {
            (Kind::Message(_), _) => Json::String(field.name().to_string()),
            (_, value) => {
                let inner = value_from_wire(&field, value, &at(path, field.name()))?;
                Json::Object([(field.name().to_string(), inner)].into_iter().collect())
            }
        }));
    }
    let mut fields = serde_json::Map::new();
    for field in desc.fields() {
        // A section left out takes the engine's defaults.
        if matches!(field.kind(), Kind::Message(_)) && !message.has_field(&field) {
            continue;
        }
        let path = at(path, field.name());
        let value = message.get_field(&field);
        let json = match (field.kind(), value.as_ref()) {
            (Kind::Message(_), Wire::Message(inner)) => match message_from_wire(inner, &path)? {
                Some(json) => json,
                None => continue,
            },
            (_, value) => value_from_wire(&field, value, &path)?,
        };
        fields.insert(field.name().to_string(), json);
    }
    Ok(Some(Json::Object(fields)))
}

fn value_from_wire(field: &FieldDescriptor, value: &Wire, path: &str) -> Result<Json, ConvertError> {
    Ok(match (field.kind(), value) {
        (Kind::Enum(e), Wire::EnumNumber(n)) => {
            let value = e.get_value(*n).ok_or_else(|| {
                bad_owned(path.to_string(), format!("{n} is not one of the {} values", e.name()))
            })?;
            let variant = value.name().strip_prefix(value_prefix(&e).as_str()).unwrap_or(value.name());
            Json::String(variant.to_ascii_lowercase())
        }
        (_, Wire::U32(n)) => Json::from(*n),
        (_, Wire::U64(n)) => Json::from(*n),
        (_, Wire::String(s)) => Json::String(s.clone()),
        (_, Wire::Bool(b)) => Json::Bool(*b),
        (kind, _) => return Err(bad_owned(path.to_string(), format!("a {kind:?} field is not a rule"))),
    })
}

fn bad_owned(field: String, problem: impl Into<String>) -> ConvertError {
    ConvertError { field: Cow::Owned(field), problem: problem.into() }
}

/// One setting of a rule set as the wire carries it: its path, as `dudo create --set` and a
/// table's settings name it (`dice.faces`), and what it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSetting {
    pub path: String,
    pub takes: SettingTakes,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingTakes {
    /// One of these options, in the engine's names (`more_dice`).
    Choice(Vec<String>),
    /// A whole number.
    Count,
    /// Text (the rule set's name).
    Text,
}

/// Every setting of a rule set, read off the wire type (a rule with data, `game_end`, is a
/// choice of its variants without data and a count for each with).
pub fn rule_settings() -> Vec<RuleSetting> {
    fn walk(desc: &MessageDescriptor, path: &str, out: &mut Vec<RuleSetting>) {
        let oneof_only =
            desc.oneofs().next().is_some() && desc.fields().all(|f| f.containing_oneof().is_some());
        let mut bare = Vec::new();
        for field in desc.fields() {
            let at = at(path, field.name());
            match field.kind() {
                Kind::Message(_) if oneof_only => bare.push(field.name().to_string()),
                Kind::Message(inner) => walk(&inner, &at, out),
                Kind::Enum(e) => {
                    let prefix = value_prefix(&e);
                    let names = e.values().map(|v| {
                        v.name().strip_prefix(prefix.as_str()).unwrap_or(v.name()).to_ascii_lowercase()
                    });
                    out.push(RuleSetting { path: at, takes: SettingTakes::Choice(names.collect()) });
                }
                Kind::String => out.push(RuleSetting { path: at, takes: SettingTakes::Text }),
                _ => out.push(RuleSetting { path: at, takes: SettingTakes::Count }),
            }
        }
        if !bare.is_empty() {
            out.push(RuleSetting { path: path.to_string(), takes: SettingTakes::Choice(bare) });
        }
    }
    let mut out = Vec::new();
    if let Ok(desc) = descriptor() {
        walk(desc, "", &mut out);
    }
    out
}
