// The front page: make a table from any preset with the host's options, see the tables
// waiting, join one by its code.
import { useEffect, useState } from "preact/hooks";
import { keep, lastName, lobby, rememberName, say } from "./api";
import { ClockChoice, HostOptions, optionsOf, settingsOf, shownFor, type Options } from "./options";
import { ExampleGame } from "./example";
import { RuleNotes } from "./howto";
import type { Preset, TableSummary } from "./gen/dudo/v1/service_pb";

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
      <ExampleGame />
      <section class="panel" aria-label="Tables">
        <h2>Tables not yet started</h2>
        {tables.length === 0 ? (
          <p>None yet: make one above.</p>
        ) : (
          <ul class="tables">
            {tables.map((t) => (
              <li>
                <a href={`/t/${t.joinCode}`}>
                  <strong>{t.joinCode}</strong> {presets.find((p) => p.name === t.rules)?.title || t.rules} · {t.taken}/{t.seats} seats · host {t.host || "not seated"}
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
  const [clock, setClock] = useState(-1);
  // -1: the server's own wait after each showdown (5 s unless it was set otherwise).
  const [reveal, setReveal] = useState(-1);
  const [spectatorsChat, setSpectatorsChat] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!rules) return;
    setOptions(optionsOf(rules));
    const min = rules.players?.min ?? 2;
    const max = rules.players?.max ?? 6;
    setSeats((s) => Math.min(Math.max(s, min), max));
  }, [preset, rules]);
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
          // No clock is a choice made here: a player who walks away then holds the game up.
          const joined = await lobby.createTable({
            preset,
            name,
            seats,
            settings,
            moveMillis: clock < 0 ? undefined : clock * 1000,
            timeBankMillis: clock > 0 ? 60_000 : 0,
            revealPauseMillis: reveal < 0 ? undefined : reveal * 1000,
            spectatorsChat,
          });
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
            <option value={p.name}>{p.title || p.name}</option>
          ))}
        </select>
      </label>
      {chosen && (
        <details class="how-to-preset">
          <summary>How to play: {chosen.title || chosen.name}</summary>
          <RuleNotes notes={chosen.howToPlay} />
        </details>
      )}
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
      <ClockChoice value={clock} set={setClock} />
      <label>
        After each reveal{" "}
        <select value={reveal} onChange={(e) => setReveal(Number(e.currentTarget.value))}>
          <option value={-1}>wait a few seconds for everyone to see it</option>
          <option value={0}>go straight on</option>
          <option value={10}>wait up to 10 s</option>
          <option value={30}>wait up to 30 s</option>
        </select>
      </label>
      <label class="check">
        <input type="checkbox" checked={spectatorsChat} onChange={(e) => setSpectatorsChat(e.currentTarget.checked)} /> People
        watching may talk too
      </label>
      {options && rules?.family === 0 && <HostOptions options={options} set={setOptions} rules={rules} />}
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
