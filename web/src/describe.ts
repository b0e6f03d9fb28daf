// One line of the table's story per event, in the game's own words. The server decides and
// counts; these lines only say what it sent.
import { LeaveWhy, type Event, type Hand, type RoundSettled } from "./gen/dudo/v1/game_pb";
import { handName, handText, type HandGame } from "./hand";

type Names = (seat: number) => string;

const MANY: Record<string, string> = { die: "dice", life: "lives" };
const plural = (n: number, one: string) => `${n} ${n === 1 ? one : (MANY[one] ?? `${one}s`)}`;

/** `game`: the individual-hand game being played, whose hands have their own symbols;
 * `points`: the points game, whose bids are guesses and whose dudo is a doubt. */
export function describe(e: Event, name: Names, game?: HandGame, points = false): string | undefined {
  const k = e.kind;
  const hand = (h: Hand | undefined) => handText(game, h?.dice ?? []);
  const said = (h: Hand | undefined) => {
    const words = handName(game, h?.dice ?? []);
    return words ? ` (${words})` : "";
  };
  const faces = (dice: readonly number[]) => handText(game, dice).split("").join(" ");
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
      return `${name(k.value.seat)} ${points ? "guesses" : "bids"} ${k.value.bid?.quantity} × ${k.value.bid?.face}.`;
    case "dicePushed":
      return `${name(k.value.seat)} shows ${k.value.pushed.join(" ")} and re-rolls the rest.`;
    case "passed":
      return `${name(k.value.seat)} passes.`;
    case "dudoCalled":
      if (game) return `${name(k.value.seat)} lifts the cup on ${name(k.value.target)}'s claim!`;
      return points
        ? `${name(k.value.seat)} doubts ${name(k.value.target)}'s guess!`
        : `${name(k.value.seat)} calls dudo on ${name(k.value.target)}!`;
    case "calzaCalled":
      return `${name(k.value.seat)} calls calza!`;
    case "diceRevealed":
      return k.value.total !== undefined ? `The cups are lifted: ${k.value.total} counted.` : "The cups are lifted.";
    case "roundSettled":
      return settled(k.value, name, points);
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
    case "seatLeft": {
      // Said after the round began: who opens it now.
      const opens = k.value.starter !== k.value.seat ? ` ${name(k.value.starter)} opens the round.` : "";
      return `${name(k.value.seat)} is out of the game, in place ${k.value.place}.${opens}`;
    }
    case "resultsTable":
      return undefined;
    case "handStarted":
      return `Hand ${k.value.hand}: ${name(k.value.starter)} starts.`;
    case "accepted":
      return `${name(k.value.seat)} takes the cup.`;
    case "handRolled":
      return `${name(k.value.seat)} rolls ${plural(k.value.count, "die")}.`;
    case "handSeen":
      return `${name(k.value.seat)} sees ${faces(k.value.dice)} under the cup.`;
    case "diceShown":
      return `${name(k.value.seat)} shows ${faces(k.value.dice.map((d) => d.face))}.`;
    case "claimed": {
      const spoken = hand(k.value.spoken);
      const claim = hand(k.value.claim);
      return spoken === claim
        ? `${name(k.value.seat)} passes the cup: "${claim}"${said(k.value.claim)}.`
        : `${name(k.value.seat)} passes the cup: "${spoken}", an undercall taken as better: ${claim}${said(k.value.claim)}.`;
    }
    case "handRevealed":
      return `The cup is lifted: ${faces(k.value.dice)}.`;
    case "challengeSettled":
      return `The claim was ${hand(k.value.claim)} and the hand is ${hand(k.value.hand)}: ${name(k.value.winner)} wins, ${name(k.value.loser)} loses.`;
    case "fiveAces":
      return k.value.made
        ? `${name(k.value.seat)} rolls the five aces! Nobody loses a life.`
        : `${name(k.value.seat)} misses the five aces.`;
    case "cupCaught":
      return `${name(k.value.seat)} ${k.value.caught ? "catches" : "misses"} the cup: ${k.value.drinks} drinks.`;
    case "lifeLost":
      return `${name(k.value.seat)} loses a life (${plural(k.value.lives, "life")} left).`;
    case "dogsLife":
      return k.value.barked
        ? `${name(k.value.seat)} barks like a dog and plays on with the dog's life.`
        : `${name(k.value.seat)} declines the dog's life.`;
    case "gameOver":
      return `Game over. ${k.value.standings.map((s, i) => `${i + 1}. ${name(s)}`).join("  ")}`;
    case "turnTimedOut":
      return `${name(k.value.seat)}'s time ran out: the default move is played.`;
    case "gameStopped":
      return "The game was stopped at the server's limit.";
    case "callWindowLapsed":
      return undefined;
    case "seatLeaving":
      // A player's own leave, taking effect now: the game's seatLeft that follows says so,
      // with their place.
      if (k.value.why === LeaveWhy.LEFT && !k.value.atRoundEnd) return undefined;
      return leaving(k.value.seat, k.value.why, k.value.atRoundEnd, name);
    default:
      return undefined;
  }
}

/** What a round's showdown settled: the count against the claim, and who lost. A failed calza
 * is the caller's loss, not the bidder's win of a challenge. */
function settled(r: RoundSettled, name: Names, points: boolean): string {
  const s = r.showdown?.showdown;
  const there = (n: number) => (n === 0 ? "there were none" : n === 1 ? "there was 1" : `there were ${n}`);
  const bid = (b: { quantity: number; face: number } | undefined) => (b ? `${b.quantity} × ${b.face}` : "the bid");
  switch (s?.case) {
    case "dudoOnBid":
      return `The ${points ? "guess" : "bid"} was ${bid(s.value.bid)} and ${there(s.value.actual)}: ${name(r.winner)} wins the ${points ? "doubt" : "challenge"}, ${name(r.loser)} loses it.`;
    case "dudoOnPass":
      return `The pass was ${s.value ? "true" : "false"}: ${name(r.winner)} wins the challenge, ${name(r.loser)} loses it.`;
    case "calza":
      return s.value.bid?.quantity === s.value.actual
        ? `Calza! Exactly ${bid(s.value.bid)}: ${name(r.winner)} was right.`
        : `The calza failed: the bid was ${bid(s.value.bid)} and ${there(s.value.actual)}, not exactly ${s.value.bid?.quantity}. ${name(r.loser)} called it and loses.`;
    case "guessesChecked":
      return `Everyone else watches: the last guess, ${bid(s.value.bid)}, meets ${s.value.actual} on the table.`;
    default:
      return `${name(r.winner)} wins the round; ${name(r.loser)} loses it.`;
  }
}

/** A seat taken out of the game, and why (now, or at the round's end). */
function leaving(seat: number, why: LeaveWhy, atRoundEnd: boolean, name: Names): string {
  const who = name(seat);
  const what =
    why === LeaveWhy.REMOVED
      ? `The host removes ${who} from the game`
      : why === LeaveWhy.AWAY
        ? `${who} has been away for a whole round and is taken out of the game`
        : why === LeaveWhy.TIMED_OUT
          ? `${who} ran out of time twice in a row and is taken out of the game`
          : `${who} leaves the game`;
  return atRoundEnd ? `${what} at the end of this round; until then their moves are played for them.` : `${what}.`;
}
