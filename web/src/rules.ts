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
