// Rules at the table: how to play them in players' words (the server's, from the rules
// themselves: wilds, what raises, the calls and what a lost one costs, palifico, the end),
// and behind it every setting by its path, as `dudo create --rule` and docs/rules.md write them.
import { toBinary } from "@bufbuild/protobuf";
import { useEffect, useState } from "preact/hooks";
import { lobby } from "./api";
import type { RuleNote } from "./gen/dudo/v1/service_pb";
import { RuleSetSchema, type RuleSet } from "./gen/dudo/v1/rules_pb";
import { ruleFields } from "./rules";

/** The notes of a how-to-play, topic by topic. */
export function RuleNotes({ notes }: { notes: RuleNote[] }) {
  return (
    <dl class="how-to">
      {notes.map((n) => (
        <>
          <dt>{n.topic}</dt>
          <dd>{n.text}</dd>
        </>
      ))}
    </dl>
  );
}

/** How to play this table's rules (asked of the server once a rule set), open while it
 * waits; the full settings behind it. */
export function HowToPlay({ rules, open }: { rules: RuleSet; open: boolean }) {
  const fields = [...ruleFields(rules)];
  const [notes, setNotes] = useState<RuleNote[]>([]);
  const key = toBinary(RuleSetSchema, rules).join(",");
  useEffect(() => {
    lobby.describeRules(rules).then(
      (r) => setNotes(r.notes),
      () => setNotes([]),
    );
  }, [key]);
  return (
    <details class="panel rules" open={open}>
      <summary>How to play at this table</summary>
      <RuleNotes notes={notes} />
      <details class="settings">
        <summary>Every setting ({fields.length})</summary>
        <p class="summary">
          Each is explained in <code>docs/rules.md</code>; the host may change any of them while the table waits.
        </p>
        <dl>
          {fields.map(([path, value]) => (
            <>
              <dt>{path}</dt>
              <dd>{value}</dd>
            </>
          ))}
        </dl>
      </details>
    </details>
  );
}
