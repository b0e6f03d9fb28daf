// The table's story, a line per event: the server's words for it (the server decides and
// says; the page only chooses what to tell here). What the page shows elsewhere is left out:
// the dice are in the cups and the reveal, the results table is a panel of its own, and the
// server's commitments to its dice are for checking, not reading.
import { LeaveWhy, type Event } from "./gen/dudo/v1/game_pb";

const SHOWN_ELSEWHERE = new Set(["diceRolled", "resultsTable", "diceCommitted", "diceSalts", "callWindowLapsed"]);

/** The line the story tells for `e`, if it tells one. `rolls`: a record's rolls are told too
 * (every cup of a finished game is open), where a live table shows dice in the cups. */
export function told(e: Event, rolls = false): string | undefined {
  const k = e.kind;
  if (k.case === "diceRolled" && rolls) return e.text || undefined;
  if (SHOWN_ELSEWHERE.has(k.case ?? "")) return undefined;
  // A player's own leave, taking effect now: the game's seatLeft that follows says so, with
  // their place.
  if (k.case === "seatLeaving" && k.value.why === LeaveWhy.LEFT && !k.value.atRoundEnd) return undefined;
  return e.text || undefined;
}
