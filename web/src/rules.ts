// A table's rules as `field=value` lines, the way docs/rules.md, `dudo create --rule` and
// the host's "Any other rule" box write them (`dice.start=5`, `wilds=ones`,
// `game_end.rounds=10`, `game_end=single_round`), read from the rule set the server sent.
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { RuleSetSchema, type RuleSet } from "./gen/dudo/v1/rules_pb";

/** Every field of the rule set, path → value, in the proto's order. */
export function ruleFields(rules: RuleSet): Map<string, string> {
  const out = new Map<string, string>();
  walk(reflect(RuleSetSchema, rules), "", out);
  return out;
}

function walk(r: ReflectMessage, prefix: string, out: Map<string, string>) {
  for (const f of r.fields) {
    const path = prefix + f.name;
    if (f.oneof) {
      // A oneof says which variant: `game_end=single_round`, or `game_end.rounds=10`.
      if (r.oneofCase(f.oneof) !== f) continue;
      if (f.fieldKind === "message" && f.message.typeName === "dudo.v1.Empty") {
        out.set(prefix.replace(/\.$/, ""), f.name);
        continue;
      }
    }
    switch (f.fieldKind) {
      case "message":
        walk(r.get(f), `${path}.`, out);
        break;
      case "enum": {
        const n = r.get(f);
        const value = f.enum.values.find((v) => v.number === n);
        out.set(path, value ? value.localName.toLowerCase() : String(n));
        break;
      }
      case "scalar":
        out.set(path, String(r.get(f)));
        break;
      default:
        break;
    }
  }
}

/** What changed between two rule sets, as `dice.start 5 → 3` (at most eight, then a count). */
export function ruleChanges(before: RuleSet, after: RuleSet): string[] {
  const a = ruleFields(before);
  const b = ruleFields(after);
  const changed: string[] = [];
  for (const [path, value] of b) {
    if (path === "name") continue;
    const was = a.get(path);
    if (was !== value) changed.push(was === undefined ? `${path} ${value}` : `${path} ${was} → ${value}`);
  }
  for (const path of a.keys()) if (!b.has(path)) changed.push(`${path} unset`);
  return changed.length > 8 ? [...changed.slice(0, 8), `and ${changed.length - 8} more`] : changed;
}
