// Finished games: the list (`/games`, `?player=NAME` to filter) and a game's replay
// (`/g/ID`), round by round with every cup shown. Both read the server's records
// (History.ListGames and GetReplay); a server run without a database has none and says so.
import { useEffect, useMemo, useState } from "preact/hooks";
import { history, say } from "./api";
import { told } from "./story";
import { Dice, Die } from "./dice";
import type { DiceRevealed, Event } from "./gen/dudo/v1/game_pb";
import type { GameSummary, Replay } from "./gen/dudo/v1/service_pb";
import { handGame, type HandGame } from "./hand";

export function when(millis: bigint): string {
  return new Date(Number(millis)).toLocaleString();
}

/** Who played: the winner, then the others in their places. */
function players(g: GameSummary): string {
  const sorted = [...g.players].sort((a, b) => (a.place || 99) - (b.place || 99));
  const winner = sorted[0]?.place === 1 ? sorted.shift() : undefined;
  const rest = sorted.map((p) => p.name).join(", ");
  return winner ? `${winner.name} won${rest ? `; with ${rest}` : ""}` : rest;
}

export function GameList({ games, by }: { games: GameSummary[]; by?: string }) {
  if (games.length === 0) return <p>{by ? `No finished games played by ${by}.` : "No finished games yet."}</p>;
  return (
    <ul class="games">
      {games.map((g) => (
        <li>
          <a href={`/g/${encodeURIComponent(g.id)}`}>
            {g.preset} · {when(g.finishedUnixMillis)}
          </a>{" "}
          <span class="summary">
            {players(g)}
            {g.ratingPool && ` · rated in ${g.ratingPool}`}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function GamesPage() {
  const params = new URLSearchParams(location.search);
  const [player, setPlayer] = useState(params.get("player") ?? "");
  const [games, setGames] = useState<GameSummary[]>();
  const [shownFor, setShownFor] = useState("");
  const [error, setError] = useState<string>();
  const load = (name: string) => {
    setError(undefined);
    history.listGames({ player: name.trim(), limit: 50 }).then(
      (r) => {
        setGames(r.games);
        setShownFor(name.trim());
      },
      (e) => setError(say(e)),
    );
  };
  useEffect(() => load(player), []);
  return (
    <div>
      <Nav />
      <section class="panel" aria-label="Finished games">
        <h1>Finished games</h1>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            window.history.replaceState(null, "", player ? `?player=${encodeURIComponent(player)}` : location.pathname);
            load(player);
          }}
        >
          <label>
            Played by <input value={player} maxLength={64} onInput={(e) => setPlayer(e.currentTarget.value)} placeholder="anyone" />
          </label>
          <button type="submit">Show</button>
        </form>
        {error && <p role="alert">{error}</p>}
        {games && <GameList games={games} by={shownFor || undefined} />}
      </section>
    </div>
  );
}

/** The links every page but a table carries. */
export function Nav() {
  return (
    <header class="bar">
      <a href="/">
        <strong>dudo</strong>
      </a>
      <a href="/">Tables</a>
      <a href="/games">Finished games</a>
      <a href="/ladder">Ladder</a>
    </header>
  );
}

/** One round (or hand) of a record: its events, and the cups as they were. */
type Round = { title: string; events: Event[] };

function rounds(events: Event[]): Round[] {
  const out: Round[] = [{ title: "Before the first round", events: [] }];
  for (const e of events) {
    const k = e.kind;
    if (k.case === "roundStarted") out.push({ title: `Round ${k.value.round}`, events: [] });
    if (k.case === "handStarted") out.push({ title: `Hand ${k.value.hand}`, events: [] });
    out[out.length - 1].events.push(e);
  }
  return out.filter((r) => r.events.length > 0);
}

export function ReplayPage({ id }: { id: string }) {
  const [replay, setReplay] = useState<Replay>();
  const [error, setError] = useState<string>();
  // The round shown is in the address (#3), so a reload or a shared link keeps it.
  const [at, setAt] = useState(() => Math.max(0, Number(location.hash.match(/^#(\d+)$/)?.[1] ?? 1) - 1));
  useEffect(() => {
    history.getReplay({ game: id }).then(setReplay, (e) => setError(say(e)));
  }, [id]);
  useEffect(() => {
    window.history.replaceState(null, "", `#${at + 1}`);
  }, [at]);
  const all = useMemo(() => (replay ? rounds(replay.events) : []), [replay]);
  useEffect(() => {
    // ← and → step through the rounds.
    const key = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement) return;
      if (e.key === "ArrowRight") setAt((a) => Math.min(a + 1, all.length - 1));
      if (e.key === "ArrowLeft") setAt((a) => Math.max(a - 1, 0));
    };
    addEventListener("keydown", key);
    return () => removeEventListener("keydown", key);
  }, [all.length]);
  if (error) {
    return (
      <div>
        <Nav />
        <section class="panel">
          <h1>No such game</h1>
          <p role="alert">{error}</p>
        </section>
      </div>
    );
  }
  if (!replay) return <p>Finding game {id}…</p>;
  const summary = replay.summary;
  const name = (seat: number) => summary?.players.find((p) => p.seat === seat)?.name ?? `seat ${seat}`;
  const game = handGame(replay.rules);
  const round = all[Math.min(at, all.length - 1)];
  const shown = Math.min(at, all.length - 1);
  return (
    <div>
      <Nav />
      <section class="panel" aria-label="The game">
        <h1>
          {summary?.preset} · {summary && when(summary.finishedUnixMillis)}
        </h1>
        <p class="summary">
          {summary && players(summary)}
          {summary?.ratingPool && ` · rated in ${summary.ratingPool}`} · game {id}
        </p>
      </section>
      {round && (
        <section class="panel replay" aria-label="The round">
          <nav class="calls" aria-label="Rounds">
            <button type="button" disabled={shown === 0} onClick={() => setAt(shown - 1)}>
              ← Previous
            </button>
            <span class="step">
              {round.title} ({shown + 1} of {all.length})
            </span>
            <button type="button" disabled={shown >= all.length - 1} onClick={() => setAt(shown + 1)}>
              Next →
            </button>
          </nav>
          <Cups round={round} name={name} game={game} />
          <ol class="lines">
            {round.events.map((e) => {
              const line = told(e, true);
              return line ? <li>{line}</li> : null;
            })}
          </ol>
        </section>
      )}
    </div>
  );
}

/** Every cup of the round: as the reveal showed them (counted dice marked), or as rolled. */
function Cups({ round, name, game }: { round: Round; name: (seat: number) => string; game?: HandGame }) {
  let reveal: DiceRevealed | undefined;
  const cups = new Map<number, number[]>();
  let hand: number[] | undefined;
  for (const e of round.events) {
    const k = e.kind;
    if (k.case === "diceRolled") cups.set(k.value.seat, k.value.dice);
    if (k.case === "diceRevealed") reveal = k.value;
    if (k.case === "handRevealed") hand = k.value.dice;
  }
  if (game) {
    return hand ? (
      <p class="cup">
        Under the cup when it was lifted: <Dice faces={hand} game={game} />
      </p>
    ) : null;
  }
  if (reveal) {
    return (
      <div aria-label="Every cup">
        <h2>
          Every cup
          {reveal.face !== undefined && reveal.total !== undefined && (
            <>
              {" "}
              · {reveal.total} counted for <Die face={reveal.face} size={22} />
            </>
          )}
        </h2>
        <ul class="all-dice">
          {reveal.dice.map((d, seat) =>
            d.dice.length === 0 ? null : (
              <li>
                <span class="name">{name(seat)}</span> <Dice faces={d.dice} marks={reveal?.counted[seat]?.dice} size={26} />
                {reveal?.counted[seat] && <span class="count"> {reveal.counted[seat].count}</span>}
              </li>
            ),
          )}
        </ul>
      </div>
    );
  }
  if (cups.size === 0) return null;
  return (
    <ul class="all-dice" aria-label="Every cup">
      {[...cups.entries()].map(([seat, dice]) => (
        <li>
          <span class="name">{name(seat)}</span> <Dice faces={dice} size={26} />
        </li>
      ))}
    </ul>
  );
}
