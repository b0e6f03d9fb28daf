// The table itself: seats around an oval of felt, play going clockwise (the arrows on the
// rim), your seat at the bottom, the bid in the middle. Each seat shows its cup and how many
// dice are under it, who opens, who is to move (lit, with the clock as a ring round the cup),
// what they just said; at a showdown the cups lift one by one from the caller's on, the
// counted dice marked. What just happened moves (see cues.ts), briefly; a click on the felt
// or Escape skips it, and a browser that asks for reduced motion sees none.
//
// The felt only draws a model (`FeltSeat`): the live table builds it from what the server
// sent (table.tsx), the front page's example from a record's events (example.tsx).
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { MOTION_MS, reducedMotion, type Cue } from "./cues";
import { Dice, Die } from "./dice";
import type { HandGame } from "./hand";

export type FeltSeat = {
  seat: number;
  name: string;
  you: boolean;
  /** Dice under the cup (for the individual-hand games, none: one cup goes round). */
  dice: number;
  /** Dice face up at the seat: your own, every cup for whoever may see them, or the reveal. */
  faces?: number[];
  /** Of `faces`, those counted at the reveal. */
  marks?: boolean[];
  /** How many of them counted. */
  counted?: number;
  /** The cup is lifted (a showdown): `liftOrder` 0 is the caller's, lifted first. */
  lifted?: boolean;
  liftOrder?: number;
  /** Dice pushed out in view (the house rules). */
  pushed?: number[];
  lit: boolean;
  opens?: string;
  /** Small words under the name: host, away 20 s, palifico, out, the tally. */
  notes: string[];
  out: boolean;
  here?: "here" | "away";
  /** The running clock at this seat: ms left of `full`. */
  clock?: { left: number; full: number };
  /** A line just said, or a reaction, shown as a bubble. */
  said?: string;
};

export type FeltProps = {
  seats: FeltSeat[];
  /** Free seats still to take (a waiting table). */
  free?: number;
  center: ComponentChildren;
  cues: Cue[];
  /** The individual-hand games: the seat holding the cup (it moves there). */
  cupAt?: number;
  game?: HandGame;
  /** The seat the felt is drawn from (at the bottom); the first seat when watching. */
  from?: number;
  label?: string;
  /** The seats' list's name, for a screen reader (and one page with two felts). */
  seatsLabel?: string;
};

/** A seat's place on the oval, in percent of the felt: `i` of `n`, the viewer's at the bottom. */
export function place(i: number, n: number, narrow = false): { x: number; y: number } {
  const angle = Math.PI / 2 + (i * 2 * Math.PI) / Math.max(n, 1);
  return { x: 50 + (narrow ? 35 : 41) * Math.cos(angle), y: 50 + (narrow ? 40 : 37) * Math.sin(angle) };
}

/** A phone's width: the seats come in from the sides. */
function narrowScreen(): boolean {
  return typeof matchMedia === "function" && matchMedia("(max-width: 40rem)").matches;
}

/** How long after a showdown's cue its cups are all up and counted (ms): what it settled
 * (the count, the outcome, a die lost or won) waits this long. `lifted` cups of `seats`. */
export function settleMillis(lifted: number, seats: number): number {
  return lifted > 0 ? (lifted - 1) * liftStep(seats) + 1000 : 0;
}

/** The time between one cup's lift and the next (ms). */
function liftStep(seats: number): number {
  return Math.min(160, 640 / Math.max(1, seats));
}

export function Felt({ seats, free = 0, center, cues, cupAt, game, from, label = "The table", seatsLabel = "Seats" }: FeltProps) {
  const [skipAt, setSkipAt] = useState(0);
  const [, tick] = useState(0);
  const still = reducedMotion();
  const now = performance.now();
  // What the reveal settled waits in the middle until the last cup is up and its dice counted.
  const step = liftStep(seats.length);
  const settle = settleMillis(seats.filter((s) => s.lifted).length, seats.length);
  // A die lost or won moves once the cups are up: its motion starts that much later.
  const lasts = (c: Cue) => MOTION_MS + (c.kind === "lost" || c.kind === "won" ? settle : 0);
  const fresh = still ? [] : cues.filter((c) => now - c.at < lasts(c) && c.at > skipAt);
  // Redraw once the newest motion is over, so its marks leave the felt.
  const newest = fresh.at(-1);
  useEffect(() => {
    if (!newest) return;
    const t = setTimeout(() => tick((n) => n + 1), Math.max(0, newest.at + lasts(newest) - performance.now()));
    return () => clearTimeout(t);
  }, [newest?.id]);
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key === "Escape") setSkipAt(performance.now());
    };
    addEventListener("keydown", key);
    return () => removeEventListener("keydown", key);
  }, []);
  const n = seats.length + free;
  const base = Math.max(0, seats.findIndex((s) => s.seat === from));
  const narrow = narrowScreen();
  const at = (i: number) => place((i - base + n) % n, n, narrow);
  const spot = (seat: number) => {
    const i = seats.findIndex((s) => s.seat === seat);
    return i < 0 ? undefined : at(i);
  };
  const dealing = fresh.some((c) => c.kind === "deal");
  const cup = cupAt !== undefined ? spot(cupAt) : undefined;
  const skipped = skipAt > 0 && cues.every((c) => c.at <= skipAt);
  return (
    <section
      class={`felt${skipped ? " skip" : ""}${still ? " still" : ""}`}
      aria-label={label}
      style={{ "--settle": `${settle}ms` }}
      onClick={() => setSkipAt(performance.now())}
    >
      <svg class="rim" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true">
        <defs>
          <marker id="play-arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" markerHeight="5" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" />
          </marker>
        </defs>
        {[0, 1, 2, 3].map((q) => {
          // A quarter of the rim a path, each ending in an arrow: play goes clockwise.
          const a0 = (q * Math.PI) / 2 + 0.35;
          const a1 = a0 + Math.PI / 2 - 0.7;
          const p = (a: number) => `${50 + 47 * Math.cos(a)},${50 + 45 * Math.sin(a)}`;
          return <path d={`M${p(a0)} A47,45 0 0,1 ${p(a1)}`} marker-end="url(#play-arrow)" />;
        })}
      </svg>
      <div class="center">{center}</div>
      <ol class="spots" aria-label={seatsLabel}>
      {seats.map((s, i) => {
        const { x, y } = at(i);
        const moved = fresh.filter((c) => c.seat === s.seat);
        return (
          <li
            key={s.seat}
            class={`spot${s.lit ? " lit" : ""}${s.you ? " you" : ""}${s.out ? " out" : ""}`}
            style={{ left: `${x}%`, top: `${y}%`, "--lift": `${(s.liftOrder ?? 0) * step}ms` }}
          >
            {s.said && (
              <span class="bubble" role="status">
                {s.said}
              </span>
            )}
            {moved.map((c) =>
              c.kind === "dudo" || c.kind === "calza" ? (
                <span key={c.id} class="bubble call-said" aria-hidden="true">
                  {c.kind === "calza" ? "Calza!" : game ? "Lift!" : "Dudo!"}
                </span>
              ) : null,
            )}
            <div class="cup-spot">
              {s.clock && <ClockRing {...s.clock} />}
              {!game && <CupIcon count={s.dice} lifted={!!s.lifted} shaking={dealing} />}
              {game && <span class={`token${s.lit ? " lit" : ""}`} aria-hidden="true">{s.name.slice(0, 1).toUpperCase()}</span>}
              {moved.map((c) =>
                c.kind === "lost" ? (
                  <span key={c.id} class="flying leaving" aria-hidden="true">
                    {Array.from({ length: Math.min(c.count ?? 1, 5) }, () => <Die face={0} size={16} />)}
                  </span>
                ) : c.kind === "won" ? (
                  <span
                    key={c.id}
                    class="flying arriving"
                    aria-hidden="true"
                    style={{ "--from-x": `${(50 - x) * 4}%`, "--from-y": `${(50 - y) * 4}%` }}
                  >
                    {Array.from({ length: Math.min(c.count ?? 1, 5) }, () => <Die face={0} size={16} />)}
                  </span>
                ) : null,
              )}
            </div>
            <span class="who">
              {s.here && <span class={`presence ${s.here}`} aria-hidden="true">●</span>}
              <strong>{s.name}</strong>
              {s.you && " (you)"}
            </span>
            {s.opens && <span class="opens">{s.opens}</span>}
            {s.notes.length > 0 && <span class="notes">{s.notes.join(" · ")}</span>}
            {s.faces && s.faces.length > 0 && (
              <span class={`faces${s.lifted ? " shown" : ""}${dealing && s.you ? " rolling" : ""}`} key={s.lifted ? "shown" : "own"}>
                <Dice faces={s.faces} marks={s.marks} size={s.you ? 26 : 20} game={game} />
                {s.counted !== undefined && <span class="counted"> {s.counted}</span>}
              </span>
            )}
            {s.pushed && s.pushed.length > 0 && (
              <span class="pushed" title="In view">
                <Dice faces={s.pushed} size={16} />
              </span>
            )}
          </li>
        );
      })}
      {Array.from({ length: free }, (_, k) => {
        const { x, y } = at(seats.length + k);
        return (
          <li class="spot free" style={{ left: `${x}%`, top: `${y}%` }}>
            <span class="who">free seat</span>
          </li>
        );
      })}
      </ol>
      {cup && (
        <span class="passed-cup" style={{ left: `${cup.x}%`, top: `${cup.y}%` }} aria-hidden="true">
          <CupIcon count={0} lifted={false} shaking={dealing} />
        </span>
      )}
    </section>
  );
}

/** A cup, upside down on the felt, with the dice under it counted on its side. */
function CupIcon({ count, lifted, shaking }: { count: number; lifted: boolean; shaking: boolean }) {
  return (
    <svg class={`cup-icon${lifted ? " lifted" : ""}${shaking ? " shaking" : ""}`} viewBox="0 0 40 40" width="40" height="40" aria-hidden="true">
      <path d="M9 35 L13 6 Q20 3 27 6 L31 35 Q20 38 9 35 z" />
      {count > 0 && (
        <text x="20" y="26" text-anchor="middle">
          {count}
        </text>
      )}
    </svg>
  );
}

/** The clock as a ring round the cup: the part left of the move's time, and the seconds. */
function ClockRing({ left, full }: { left: number; full: number }) {
  const c = 2 * Math.PI * 26;
  const part = Math.max(0, Math.min(1, left / Math.max(full, 1)));
  const secs = Math.max(0, Math.ceil(left / 1000));
  return (
    <>
      <svg class={`ring${secs <= 10 ? " short" : ""}`} viewBox="0 0 60 60" aria-hidden="true">
        <circle cx="30" cy="30" r="26" />
        <circle class="left" cx="30" cy="30" r="26" stroke-dasharray={c} stroke-dashoffset={c * (1 - part)} />
      </svg>
      <span class="secs" role="timer" aria-label={`${secs} seconds left`}>
        {secs} s
      </span>
    </>
  );
}
