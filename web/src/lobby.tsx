// The front page: make a table from any preset with the host's options, see the tables
// waiting, join one by its code.
import { useEffect, useState } from "preact/hooks";
import { keep, lastName, lobby, rememberName, say } from "./api";
import { ExactCaller, type RuleSet } from "./gen/dudo/v1/rules_pb";
import type { Preset, TableSummary } from "./gen/dudo/v1/service_pb";

/** The host's options of the Fibbing Dice table's cog menu, each a rule setting. */
type Options = {
  dice: number;
  faces: number;
  lostOnDudo: number;
  calzaWon: number;
  calzaLost: number;
  losersSee: boolean;
  results: boolean;
  hidePercent: number;
  misshowPercent: number;
};

/** Which of the host's options mean something under these rules: no calza where there is no
 * exact call, no dice lost on a dudo (nor losers) in the points game. */
type Shown = { calza: boolean; dice_lost: boolean };

function shownFor(rules: RuleSet | undefined): Shown {
  const points = rules?.gameEnd?.end.case === "points";
  return { calza: rules?.exactCall?.who !== ExactCaller.OFF, dice_lost: !points };
}

function settingsOf(o: Options, shown: Shown) {
  return [
    ["dice.start", o.dice],
    ["dice.max", o.dice],
    ["dice.faces", o.faces],
    ...(shown.dice_lost
      ? [
          ["dice_lost_on_dudo", o.lostOnDudo],
          ["losers_see_dice", o.losersSee ? "all_dice" : "hidden"],
        ]
      : []),
    ...(shown.calza
      ? [
          ["exact_call.dice_won", o.calzaWon],
          ["exact_call.dice_lost", o.calzaLost],
        ]
      : []),
    ["results_table", o.results ? "on" : "off"],
    ["fibbing.hide_percent", o.hidePercent],
    ["fibbing.misshow_percent", o.misshowPercent],
  ].map(([path, value]) => ({ path: String(path), value: String(value) }));
}

export function LobbyPage() {
  const [presets, setPresets] = useState<Preset[]>([]);
  const [tables, setTables] = useState<TableSummary[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    lobby.listPresets({}).then((r) => setPresets(r.presets), (e) => setError(say(e)));
    const refresh = () => lobby.listTables({ pageSize: 50 }).then((r) => setTables(r.tables), () => {});
    void refresh();
    const t = setInterval(refresh, 5000);
    return () => clearInterval(t);
  }, []);
  return (
    <div class="lobby">
      <header class="bar">
        <strong>dudo</strong> <span>Liar's Dice: Perudo, Calza, Palifico and the rest of the family</span>
        <a href="/games">Finished games</a>
        <a href="/ladder">Ladder</a>
      </header>
      {error && <p role="alert">{error}</p>}
      <CreateForm presets={presets} />
      <JoinByCode />
      <section class="panel" aria-label="Tables">
        <h2>Tables not yet started</h2>
        {tables.length === 0 ? (
          <p>None yet: make one above.</p>
        ) : (
          <ul class="tables">
            {tables.map((t) => (
              <li>
                <a href={`/t/${t.joinCode}`}>
                  <strong>{t.joinCode}</strong> {t.rules} · {t.taken}/{t.seats} seats · host {t.host || "not seated"}
                </a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function CreateForm({ presets }: { presets: Preset[] }) {
  const [preset, setPreset] = useState("fibbing");
  const [name, setName] = useState(lastName());
  const [seats, setSeats] = useState(4);
  const chosen = presets.find((p) => p.name === preset);
  const rules = chosen?.rules;
  const [options, setOptions] = useState<Options | undefined>();
  const [other, setOther] = useState("");
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!rules) return;
    setOptions({
      dice: rules.dice?.start ?? 5,
      faces: rules.dice?.faces ?? 6,
      lostOnDudo: rules.diceLostOnDudo || 1,
      calzaWon: rules.exactCall?.diceWon ?? 1,
      calzaLost: rules.exactCall?.diceLost ?? 1,
      losersSee: (rules.losersSeeDice ?? 0) === 0,
      results: (rules.resultsTable ?? 0) === 0,
      hidePercent: rules.fibbing?.hidePercent ?? 0,
      misshowPercent: rules.fibbing?.misshowPercent ?? 0,
    });
    const min = rules.players?.min ?? 2;
    const max = rules.players?.max ?? 6;
    setSeats((s) => Math.min(Math.max(s, min), max));
  }, [preset, rules]);
  const set = (change: Partial<Options>) => options && setOptions({ ...options, ...change });
  const shown = shownFor(rules);
  return (
    <form
      class="panel create"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        // The host's options only where they differ from the rules chosen (individual-hand
        // games have no dice counts to change).
        const settings = [...(options && rules && rules.family === 0 ? settingsOf(options, shown) : []), ...ruleLines(other)];
        try {
          const joined = await lobby.createTable({ preset, name, seats, settings });
          rememberName(name);
          const table = joined.table!;
          keep({ table: table.id, code: table.joinCode, token: joined.token, seat: joined.seat, seated: joined.seated, name });
          location.assign(`/t/${table.joinCode}`);
        } catch (err) {
          setError(say(err));
        }
      }}
    >
      <h2>Set up a table</h2>
      <label>
        Rules{" "}
        <select value={preset} onChange={(e) => setPreset(e.currentTarget.value)}>
          {presets.map((p) => (
            <option value={p.name}>{p.name}</option>
          ))}
        </select>
      </label>
      {chosen && <p class="summary">{chosen.summary}</p>}
      <label>
        Your name <input value={name} maxLength={32} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Seats{" "}
        <input
          type="number"
          min={rules?.players?.min ?? 2}
          max={rules?.players?.max ?? 6}
          value={seats}
          onInput={(e) => setSeats(Number(e.currentTarget.value))}
        />
      </label>
      {options && rules?.family === 0 && (
        <fieldset>
          <legend>Host's options</legend>
          <Num label="Dice each" min={3} max={20} value={options.dice} set={(dice) => set({ dice })} />
          <Num label="Faces" min={3} max={9} value={options.faces} set={(faces) => set({ faces })} />
          {shown.dice_lost && (
            <Num label="Dice lost on a dudo" min={1} max={options.dice} value={options.lostOnDudo} set={(lostOnDudo) => set({ lostOnDudo })} />
          )}
          {shown.calza && (
            <>
              <Num label="Dice won on a calza" min={1} max={5} value={options.calzaWon} set={(calzaWon) => set({ calzaWon })} />
              <Num label="Dice lost on a calza" min={1} max={5} value={options.calzaLost} set={(calzaLost) => set({ calzaLost })} />
            </>
          )}
          {shown.dice_lost && (
            <label>
              <input type="checkbox" checked={options.losersSee} onChange={(e) => set({ losersSee: e.currentTarget.checked })} /> Losers
              see the dice
            </label>
          )}
          <label>
            <input type="checkbox" checked={options.results} onChange={(e) => set({ results: e.currentTarget.checked })} /> Results table
            after each round
          </label>
          <Num label="Chance a die is hidden from its owner (%)" min={0} max={100} value={options.hidePercent} set={(hidePercent) => set({ hidePercent })} />
          <Num label="Chance a die is shown wrong (%)" min={0} max={100} value={options.misshowPercent} set={(misshowPercent) => set({ misshowPercent })} />
        </fieldset>
      )}
      <OtherRules value={other} set={setOther} />
      <button type="submit">Create the table</button>
      {error && (
        <p role="alert" class="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function Num(props: { label: string; min: number; max: number; value: number; set: (n: number) => void }) {
  return (
    <label>
      {props.label}{" "}
      <input
        type="number"
        min={props.min}
        max={props.max}
        value={props.value}
        onInput={(e) => props.set(Number(e.currentTarget.value))}
      />
    </label>
  );
}

function JoinByCode() {
  const [code, setCode] = useState("");
  return (
    <form
      class="panel"
      onSubmit={(e) => {
        e.preventDefault();
        const c = code.trim().split("/t/").pop() ?? "";
        if (c) location.assign(`/t/${encodeURIComponent(c.toUpperCase())}`);
      }}
    >
      <label>
        Join by code <input value={code} onInput={(e) => setCode(e.currentTarget.value)} placeholder="ABCDEF" />
      </label>
      <button type="submit">Go to the table</button>
    </form>
  );
}

/** Any rule by its field, one `path=value` a line, as `dudo create --rule` takes them. */
export function ruleLines(text: string): { path: string; value: string }[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const at = l.indexOf("=");
      return at < 0 ? { path: l, value: "" } : { path: l.slice(0, at).trim(), value: l.slice(at + 1).trim() };
    });
}

export function OtherRules({ value, set }: { value: string; set: (text: string) => void }) {
  return (
    <details class="other-rules">
      <summary>Any other rule</summary>
      <p class="summary">
        One <code>field=value</code> a line, as in docs/rules.md (for example <code>palifico.trigger=off</code> or{" "}
        <code>game_end.rounds=10</code>); the server names any field or value it refuses.
      </p>
      <textarea aria-label="Any other rule" rows={3} maxLength={4000} value={value} onInput={(e) => set(e.currentTarget.value)} />
    </details>
  );
}
