// The front page's worked example: the Fibbing Dice manual's game of Bob, Alice and Roger,
// replayed on the felt move by move. It is the engine's own record of the game
// (`dudo script examples/scripts/fibbing-example.json --format replay`, kept in
// example/fibbing-example.replay and checked against the engine by the tests), so every
// call, count and lost die is what the server would play; every cup is open, as in the manual.
import { fromBinary } from "@bufbuild/protobuf";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { cuesOf, type Cue } from "./cues";
import { BidText, Die } from "./dice";
import { Felt, type FeltSeat } from "./felt";
import type { DiceRevealed, Event } from "./gen/dudo/v1/game_pb";
import { ReplaySchema } from "./gen/dudo/v1/service_pb";
import record from "./example/fibbing-example.replay";

/** The table after each step: what the felt draws. */
type Scene = {
  line: string;
  round: number;
  counts: number[];
  cups: number[][];
  bid?: { seat: number; quantity: number; face: number };
  starter?: number;
  reveal?: DiceRevealed;
  caller?: number;
  palifico: number[];
  out: number[];
  cues: Omit<Cue, "id" | "at">[];
};

/** The record's events told as steps, each with the table as it stands after it. */
function scenes(events: Event[]): Scene[] {
  const out: Scene[] = [];
  let s: Scene = { line: "", round: 0, counts: [], cups: [], palifico: [], out: [], cues: [] };
  for (const e of events) {
    const k = e.kind;
    s = { ...s, cues: cuesOf(e) };
    switch (k.case) {
      case "gameStarted":
        s.counts = [...k.value.dice];
        break;
      case "roundStarted":
        s = { ...s, round: k.value.round, counts: [...k.value.diceCounts], starter: k.value.starter, palifico: [...k.value.palifico], bid: undefined, reveal: undefined, caller: undefined };
        break;
      case "diceRolled": {
        // The truth follows its owner's sight: the last roll of a seat is what was under the cup.
        const cups = [...s.cups];
        cups[k.value.seat] = [...k.value.dice];
        s = { ...s, cups };
        break;
      }
      case "bidMade":
        if (k.value.bid) s = { ...s, bid: { seat: k.value.seat, quantity: k.value.bid.quantity, face: k.value.bid.face } };
        break;
      case "dudoCalled":
      case "calzaCalled":
        s = { ...s, caller: k.value.seat };
        break;
      case "diceRevealed":
        s = { ...s, reveal: k.value };
        break;
      case "diceLost": {
        const counts = [...s.counts];
        counts[k.value.seat] = k.value.left;
        s = { ...s, counts };
        break;
      }
      case "diceWon": {
        const counts = [...s.counts];
        counts[k.value.seat] = k.value.now;
        s = { ...s, counts };
        break;
      }
      case "eliminated":
        s = { ...s, out: [...s.out, k.value.seat] };
        break;
      default:
        break;
    }
    if (!e.text || k.case === "diceRolled" || k.case === "resultsTable") continue;
    out.push({ ...s, line: e.text });
  }
  return out;
}

/** How long a step stays (ms): a reveal longer, to be seen. */
function stepMillis(s: Scene): number {
  return s.cues.some((c) => c.kind === "reveal") ? 2600 : s.cues.some((c) => c.kind === "lost" || c.kind === "won") ? 1800 : 1200;
}

export function ExampleGame() {
  const replay = useMemo(() => fromBinary(ReplaySchema, record), []);
  const all = useMemo(() => scenes(replay.events), [replay]);
  const names = replay.summary?.players.map((p) => p.name) ?? [];
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [cues, setCues] = useState<Cue[]>([]);
  const scene = all[Math.min(at, all.length - 1)];
  useEffect(() => {
    if (!playing) return;
    if (at >= all.length - 1) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => setAt((a) => a + 1), stepMillis(scene));
    return () => clearTimeout(t);
  }, [playing, at]);
  // Each step's cues move the felt once, going forward: a step back shows the table as it stood.
  const before = useRef(0);
  useEffect(() => {
    const forward = at > before.current;
    before.current = at;
    if (!forward) return;
    const now = performance.now();
    setCues((old) => [...old, ...scene.cues.map((c, i) => ({ ...c, id: at * 10 + i + 1, at: now }))].slice(-8));
  }, [at]);
  if (!scene) return null;
  const n = names.length;
  const caller = scene.caller ?? 0;
  const lifting = scene.reveal ? names.map((_, i) => i).filter((i) => (scene.reveal!.dice[i]?.dice.length ?? 0) > 0) : [];
  lifting.sort((a, b) => ((a - caller + n) % n) - ((b - caller + n) % n));
  const seats: FeltSeat[] = names.map((name, seat) => ({
    seat,
    name,
    you: false,
    dice: scene.counts[seat] ?? 0,
    faces: scene.reveal ? scene.reveal.dice[seat]?.dice : scene.out.includes(seat) ? [] : scene.cups[seat],
    marks: scene.reveal?.counted[seat]?.dice,
    counted: scene.reveal?.counted[seat]?.count,
    lifted: !!scene.reveal && (scene.reveal.dice[seat]?.dice.length ?? 0) > 0,
    liftOrder: Math.max(0, lifting.indexOf(seat)),
    lit: false,
    opens: scene.starter === seat && !scene.reveal ? (scene.bid ? "opened" : "opens") : undefined,
    notes: [scene.palifico.includes(seat) ? "palifico" : "", scene.out.includes(seat) ? "out" : ""].filter(Boolean),
    out: scene.out.includes(seat),
  }));
  const center = (
    <div class="middle">
      {scene.round > 0 && <p class="round">Round {scene.round}{scene.palifico.length > 0 && " · palifico: nothing is wild"}</p>}
      {scene.reveal?.face !== undefined && scene.reveal.total !== undefined ? (
        <p class="big-count">
          {scene.reveal.total} × <Die face={scene.reveal.face} size={30} /> <span class="summary">counted</span>
        </p>
      ) : scene.bid ? (
        <p class="big-bid">
          <BidText quantity={scene.bid.quantity} face={scene.bid.face} size={36} />
        </p>
      ) : null}
      <p class="example-line" aria-live="polite">
        {scene.line}
      </p>
    </div>
  );
  return (
    <section class="panel example" aria-label="A worked example">
      <h2>Watch a game: the Fibbing Dice manual's worked example</h2>
      <p class="summary">
        Bob, Alice and Roger play Perudo as the Fibbing Dice table does, every cup open so you can follow each call. Ones are wild; a
        wrong call costs a die; the last with dice wins.
      </p>
      <Felt seats={seats} center={center} cues={cues} label="The example game" seatsLabel="The example's players" />
      <nav class="calls" aria-label="The example's steps">
        <button
          type="button"
          onClick={() => {
            if (!playing && at >= all.length - 1) {
              setAt(0);
              setCues([]);
            }
            setPlaying(!playing);
          }}
        >
          {playing ? "Pause" : at >= all.length - 1 ? "Play it again" : "Play"}
        </button>
        <button
          type="button"
          disabled={at === 0}
          onClick={() => {
            setPlaying(false);
            setAt(at - 1);
          }}
        >
          ‹ Previous step
        </button>
        <button type="button" disabled={at >= all.length - 1} onClick={() => setAt(at + 1)}>
          Next step ›
        </button>
        <button
          type="button"
          disabled={at === 0}
          onClick={() => {
            setAt(0);
            setCues([]);
          }}
        >
          From the start
        </button>
        <span class="step" role="status">
          Step {at + 1} of {all.length}
        </span>
      </nav>
    </section>
  );
}
