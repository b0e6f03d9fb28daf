// The ladder in the browser: each pool's board (`/ladder`), and one player's page in a pool
// (`/ladder/POOL/NAME`): the rating after each game drawn as a chart, and recent games with
// their replays. Read from Ladder.ListPools, Leaderboard, RatingHistory and History.ListGames.
import { useEffect, useState } from "preact/hooks";
import { createClient } from "@connectrpc/connect";
import { as, history, keep, say, transport } from "./api";
import { AccountPanel, signedIn, type Signed } from "./account";
import { AccountKind, Ladder, type GameSummary, type LadderPool, type LeaderboardEntry, type RatingPoint } from "./gen/dudo/v1/service_pb";
import { GameList, Nav, when } from "./history";

const ladder = createClient(Ladder, transport);

const playerLink = (pool: string, name: string) => `/ladder/${encodeURIComponent(pool)}/${encodeURIComponent(name)}`;

export function LadderPage() {
  const [pools, setPools] = useState<LadderPool[]>();
  const [error, setError] = useState<string>();
  const [signed, setSigned] = useState<Signed | undefined>(signedIn);
  const people = pools?.some((p) => p.players === "people");
  useEffect(() => {
    ladder.listPools({}).then(
      (r) => setPools(r.pools),
      (e) => setError(say(e)),
    );
  }, []);
  return (
    <div>
      <Nav />
      <h1>The ladder</h1>
      {error && <p role="alert">{error}</p>}
      {pools && pools.length === 0 && <p>This server runs no ladder pools.</p>}
      {people && <AccountPanel signed={signed} onChange={setSigned} />}
      {pools?.map((p) => <PoolBoard pool={p} signed={signed} />)}
      <p class="summary">
        Players are ordered by their rating's lower bound, mu − 3·sigma; a rating is provisional (marked ?) for its
        first 10 games. Players who share a place (=1) are too close to tell apart yet: more games will separate
        them. A person plays rated games in a people's pool with <strong>Play rated</strong>; a bot enters
        with <code>dudo ladder POOL --bot COMMAND</code>; see docs/ladder.md.
      </p>
    </div>
  );
}

/** "Play rated": enters a people's pool and waits for a seat (others waiting, or the
 * built-in bots after the pool's wait), then goes to the table. */
function PlayRated({ pool, signed }: { pool: LadderPool; signed?: Signed }) {
  const [waiting, setWaiting] = useState<string>();
  const [error, setError] = useState<string>();
  const [stop, setStop] = useState<AbortController>();
  if (!signed) return <p class="summary">Register a name or use a token above to play rated games here.</p>;
  const enter = async () => {
    const ac = new AbortController();
    setStop(ac);
    setError(undefined);
    setWaiting("Entering the pool…");
    try {
      for await (const u of ladder.enter({ pool: pool.name, atOnce: 1 }, { ...as(signed.token), signal: ac.signal })) {
        const up = u.update;
        if (up.case === "queued") {
          const others = Math.max(0, up.value.waiting - 1);
          const fill = pool.bots.length ? ` Built-in bots fill the table after ${pool.fillAfterSeconds} s.` : "";
          setWaiting(`Waiting for a table: ${others} other${others === 1 ? "" : "s"} waiting.${fill}`);
        } else if (up.case === "seated") {
          const s = up.value;
          keep({ table: s.table, code: s.table, token: s.token, seat: s.seat, seated: true, name: signed.name });
          location.assign(`/t/${encodeURIComponent(s.table)}`);
          return;
        } else if (up.case === "benched") {
          setWaiting(undefined);
          setError("You are benched for running out of time too often: try again later.");
          return;
        }
      }
    } catch (e) {
      if (ac.signal.aborted) return;
      setError(say(e));
    }
    setWaiting(undefined);
  };
  return (
    <div class="play-rated">
      {waiting ? (
        <p role="status">
          {waiting}{" "}
          <button
            type="button"
            onClick={() => {
              stop?.abort();
              setWaiting(undefined);
            }}
          >
            Stop waiting
          </button>
        </p>
      ) : (
        <button type="button" onClick={() => void enter()}>
          Play rated as {signed.name}
        </button>
      )}
      {error && <p role="alert">{error}</p>}
    </div>
  );
}

function PoolBoard({ pool, signed }: { pool: LadderPool; signed?: Signed }) {
  const [entries, setEntries] = useState<LeaderboardEntry[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    ladder.leaderboard({ pool: pool.name, limit: 100 }).then(
      (r) => setEntries(r.entries),
      (e) => setError(say(e)),
    );
  }, [pool.name]);
  return (
    <section class="panel" aria-label={`Pool ${pool.name}`}>
      <h2>
        {pool.name}{" "}
        <span class="summary">
          · {pool.rules}, {pool.seats} seats, {pool.moveMillis / 1000} s a move
          {pool.players === "people" ? " · for people" : pool.players === "bots" ? " · for bots" : ""}
        </span>
      </h2>
      {pool.players === "people" && <PlayRated pool={pool} signed={signed} />}
      {error && <p role="alert">{error}</p>}
      {entries && entries.length === 0 && <p>Nobody has played here yet.</p>}
      {entries && entries.length > 0 && (
        <div class="board-scroll">
        <table class="results board-table">
          <thead>
            <tr>
              <th>#</th>
              <th>Player</th>
              <th>Rating</th>
              <th>mu ± sigma</th>
              <th>Games</th>
              <th>Wins</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr>
                <td>
                  {entries.filter((o) => o.place === e.place).length > 1 ? (
                    <abbr title="too close to tell apart yet: more games will separate them">={e.place}</abbr>
                  ) : (
                    e.place
                  )}
                </td>
                <td>
                  <a href={playerLink(pool.name, e.name)}>{e.name}</a>
                  {e.kind === AccountKind.BOT && " [bot]"}
                  {e.kind === AccountKind.PERSON && " (person)"}
                </td>
                <td>
                  {e.score.toFixed(1)}
                  {e.provisional && <abbr title="provisional: fewer than 10 games"> ?</abbr>}
                </td>
                <td>
                  {e.mu.toFixed(1)} ± {e.sigma.toFixed(1)}
                </td>
                <td>{String(e.games)}</td>
                <td>{String(e.wins)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}

export function PlayerPage({ pool, name }: { pool: string; name: string }) {
  const [points, setPoints] = useState<RatingPoint[]>();
  const [games, setGames] = useState<GameSummary[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    ladder.ratingHistory({ pool, name, limit: 500 }).then(
      (r) => setPoints(r.points),
      (e) => setError(say(e)),
    );
    // The server's own bots are named "odds bot" and have no account: find them by kind.
    const bot = name.match(/^(\w+) bot$/);
    history.listGames(bot ? { player: bot[1], limit: 20 } : { account: name, limit: 20 }).then(
      // A ladder game counts for the pool "ladder:POOL".
      (r) => setGames(r.games.filter((g) => g.ratingPool === `ladder:${pool}` || g.ratingPool === pool)),
      () => setGames([]),
    );
  }, [pool, name]);
  return (
    <div>
      <Nav />
      <h1>
        {name} <span class="summary">in {pool}</span>
      </h1>
      {error && <p role="alert">{error}</p>}
      {points && (
        <section class="panel" aria-label="Rating history">
          <h2>Rating after each game</h2>
          {points.length === 0 ? <p>No rated games yet.</p> : <RatingChart points={[...points].reverse()} />}
        </section>
      )}
      <section class="panel" aria-label="Recent games">
        <h2>Recent games</h2>
        {games ? <GameList games={games} /> : <p>…</p>}
      </section>
    </div>
  );
}

/** mu after each game (oldest on the left), its ±sigma band, and the board's mu − 3·sigma. */
function RatingChart({ points }: { points: RatingPoint[] }) {
  const w = 640;
  const h = 240;
  const pad = 36;
  const lows = points.map((p) => p.mu - 3 * p.sigma);
  const highs = points.map((p) => p.mu + p.sigma);
  const lo = Math.floor(Math.min(...lows));
  const hi = Math.ceil(Math.max(...highs));
  const x = (i: number) => pad + (points.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v: number) => h - pad - ((v - lo) * (h - 2 * pad)) / Math.max(1, hi - lo);
  const line = (vals: number[]) => vals.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const band =
    points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.mu + p.sigma).toFixed(1)}`).join(" ") +
    [...points]
      .map((p, i) => ({ p, i }))
      .reverse()
      .map(({ p, i }) => ` L${x(i).toFixed(1)},${y(p.mu - p.sigma).toFixed(1)}`)
      .join("") +
    " Z";
  const last = points[points.length - 1];
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`Rating chart: mu ${last.mu.toFixed(1)} after ${points.length} games`}>
        <path class="band" d={band} />
        <path class="mu" d={line(points.map((p) => p.mu))} />
        <path class="score" d={line(lows)} />
        <text x={4} y={y(hi) + 4}>
          {hi}
        </text>
        <text x={4} y={y(lo) + 4}>
          {lo}
        </text>
        {points.map((p, i) => (
          <circle class={p.place === 1 ? "won" : ""} cx={x(i)} cy={y(p.mu)} r={3}>
            <title>
              {when(p.unixMillis)}: place {p.place}, mu {p.mu.toFixed(1)} ± {p.sigma.toFixed(1)}
            </title>
          </circle>
        ))}
      </svg>
      <figcaption>
        mu (line, filled dots for wins) with ±sigma shaded; the dashed line is mu − 3·sigma, what the board ranks by. Now{" "}
        {last.mu.toFixed(1)} ± {last.sigma.toFixed(1)}.
      </figcaption>
    </figure>
  );
}
