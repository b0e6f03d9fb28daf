// What the table does when something happens: the one place an event becomes a cue, which
// the felt shows as motion (dice rolling, cups lifting, a die leaving its seat) and the
// sound plays. A live table's events cue; a story read again after a reload does not.
import type { Event } from "./gen/dudo/v1/game_pb";

export type CueKind = "deal" | "bid" | "dudo" | "calza" | "reveal" | "lost" | "won" | "over" | "turn";

export type Cue = {
  /** Grows by one a cue: what the felt keys its motion by. */
  id: number;
  kind: CueKind;
  /** The seat it happened at (a lost or won die's, a bid's, a caller's). */
  seat?: number;
  /** Dice lost or won. */
  count?: number;
  /** When the page saw it (ms, `performance.now()`). */
  at: number;
};

/** A cue's motion lasts at most this long (the "under a second each"). */
export const MOTION_MS = 900;

/** The cues an event makes (a die given is one lost and one won). */
export function cuesOf(e: Event): Omit<Cue, "id" | "at">[] {
  const k = e.kind;
  switch (k.case) {
    case "roundStarted":
    case "handStarted":
      return [{ kind: "deal" }];
    case "bidMade":
    case "claimed":
    case "passed":
      return [{ kind: "bid", seat: k.value.seat }];
    case "dudoCalled":
      return [{ kind: "dudo", seat: k.value.seat }];
    case "calzaCalled":
      return [{ kind: "calza", seat: k.value.seat }];
    case "diceRevealed":
    case "handRevealed":
      return [{ kind: "reveal" }];
    case "diceLost":
      return [{ kind: "lost", seat: k.value.seat, count: k.value.count }];
    case "lifeLost":
      return [{ kind: "lost", seat: k.value.seat, count: 1 }];
    case "diceWon":
      return [{ kind: "won", seat: k.value.seat, count: k.value.count }];
    case "diceGiven":
      return [
        { kind: "lost", seat: k.value.from, count: k.value.count },
        { kind: "won", seat: k.value.to, count: k.value.count },
      ];
    case "gameOver":
      return [{ kind: "over" }];
    default:
      return [];
  }
}

/** Whether this browser asks for reduced motion: then nothing moves but what must change. */
export function reducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}
