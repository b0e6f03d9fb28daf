// One line of the table's story per event, in the game's own words. The server decides and
// counts; these lines only say what it sent.
import type { Event } from "./gen/dudo/v1/game_pb";

type Names = (seat: number) => string;

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : one === "die" ? "dice" : `${one}s`}`;

export function describe(e: Event, name: Names): string | undefined {
  const k = e.kind;
  switch (k.case) {
    case "gameStarted":
      return `The game begins with ${k.value.seats} players.`;
    case "rollOff":
      return `Roll-off: ${k.value.rolls.map((r) => `${name(r.seat)} ${r.face}`).join(", ")}.`;
    case "starterChosen":
      return `${name(k.value.seat)} starts.`;
    case "roundStarted": {
      const pal = k.value.palifico.length ? ` Palifico for ${k.value.palifico.map(name).join(", ")}.` : "";
      return `Round ${k.value.round}: ${name(k.value.starter)} opens.${pal}`;
    }
    case "diceRolled":
      return undefined;
    case "wildsOff":
      return "Ones are not wild this round.";
    case "bidMade":
      return `${name(k.value.seat)} bids ${k.value.bid?.quantity} × ${k.value.bid?.face}.`;
    case "dicePushed":
      return `${name(k.value.seat)} shows ${k.value.pushed.join(" ")} and re-rolls the rest.`;
    case "passed":
      return `${name(k.value.seat)} passes.`;
    case "dudoCalled":
      return `${name(k.value.seat)} calls dudo on ${name(k.value.target)}!`;
    case "calzaCalled":
      return `${name(k.value.seat)} calls calza!`;
    case "diceRevealed":
      return k.value.total !== undefined ? `The cups are lifted: ${k.value.total} counted.` : "The cups are lifted.";
    case "roundSettled":
      return `${name(k.value.winner)} was right; ${name(k.value.loser)} was not.`;
    case "diceLost":
      return `${name(k.value.seat)} loses ${plural(k.value.count, "die")} (${k.value.left} left).`;
    case "diceWon":
      return `${name(k.value.seat)} wins ${plural(k.value.count, "die")} (now ${k.value.now}).`;
    case "diceGiven":
      return `${name(k.value.from)} gives ${plural(k.value.count, "die")} to ${name(k.value.to)}.`;
    case "watched":
      return `${name(k.value.seat)} watches.`;
    case "scored":
      return `${name(k.value.seat)} scores ${k.value.points} (total ${k.value.total}).`;
    case "paid":
      return `${name(k.value.from)} pays ${name(k.value.to)} ${k.value.amount}.`;
    case "drank":
      return `${name(k.value.seat)} drinks ${k.value.drinks}.`;
    case "eliminated":
      return `${name(k.value.seat)} is out, in place ${k.value.place}.`;
    case "seatLeft":
      return `${name(k.value.seat)} leaves the game, in place ${k.value.place}.`;
    case "resultsTable":
      return undefined;
    case "handStarted":
      return `Hand ${k.value.hand}: ${name(k.value.starter)} starts.`;
    case "accepted":
      return `${name(k.value.seat)} accepts the cup.`;
    case "handRolled":
      return `${name(k.value.seat)} rolls ${plural(k.value.count, "die")}.`;
    case "claimed":
      return `${name(k.value.seat)} claims ${k.value.claim?.dice.join("") ?? "?"}.`;
    case "handRevealed":
      return `Under the cup: ${k.value.dice.join(" ")}.`;
    case "challengeSettled":
      return `${name(k.value.winner)} wins the challenge; ${name(k.value.loser)} loses.`;
    case "lifeLost":
      return `${name(k.value.seat)} loses a life (${k.value.lives} left).`;
    case "gameOver":
      return `Game over. ${k.value.standings.map((s, i) => `${i + 1}. ${name(s)}`).join("  ")}`;
    case "turnTimedOut":
      return `${name(k.value.seat)}'s time ran out: the default move is played.`;
    case "gameStopped":
      return "The game was stopped at the server's limit.";
    case "callWindowLapsed":
      return undefined;
    default:
      return undefined;
  }
}
