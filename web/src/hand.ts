// The individual-hand games (poker dice, the Stanford game, Mexican): how their faces and
// hands are written, as the terminal and the engine (dudo_rules::hand) write them. Which
// claim is higher is the server's to say: the page offers the weakest legal claim from the
// prompt and lets the server refuse anything lower.
import { Family, type RuleSet } from "./gen/dudo/v1/rules_pb";

export type HandGame = "poker_dice" | "stanford" | "mexican" | "mexican_two_dice";

export function handGame(rules: RuleSet | undefined): HandGame | undefined {
  switch (rules?.family) {
    case Family.POKER_DICE:
      return "poker_dice";
    case Family.STANFORD:
      return "stanford";
    case Family.MEXICAN:
      return "mexican";
    case Family.MEXICAN_TWO_DICE:
      return "mexican_two_dice";
    default:
      return undefined;
  }
}

/** Dice in the cup. */
export function handDice(game: HandGame): number {
  return { poker_dice: 5, stanford: 6, mexican: 3, mexican_two_dice: 2 }[game];
}

/** How a face is written: 9 T J Q K A for poker dice, digits otherwise; 0 is unknown. */
export function faceSymbol(game: HandGame | undefined, face: number): string {
  if (face === 0) return "?";
  if (game === "poker_dice") return "?9TJQKA"[face] ?? "?";
  return String(face);
}

/** A face's name for a screen reader. */
export function faceName(game: HandGame | undefined, face: number): string {
  if (face === 0) return "a hidden die";
  if (game === "poker_dice") return ["", "a nine", "a ten", "a jack", "a queen", "a king", "an ace"][face] ?? "a die";
  return `a ${face}`;
}

/** A hand as players write it ("KKTTJ", "666321"): most of a kind first, then higher faces
 * (dudo_rules::hand::Hand::new); Mexican reads highest to lowest. */
export function handText(game: HandGame | undefined, dice: readonly number[]): string {
  return handOrder(game, dice)
    .map((f) => faceSymbol(game, f))
    .join("");
}

/** The dice of a hand in the order it is written. */
export function handOrder(game: HandGame | undefined, dice: readonly number[]): number[] {
  const high = [...dice].sort((a, b) => b - a);
  if (game === "mexican" || game === "mexican_two_dice" || high.includes(0)) return high;
  const count = (f: number) => high.filter((d) => d === f).length;
  return high.sort((a, b) => count(b) - count(a) || b - a);
}

const POKER_NAMES = ["", "nines", "tens", "jacks", "queens", "kings", "aces"];
const POKER_ONE = ["", "nine", "ten", "jack", "queen", "king", "ace"];
const COUNT_WORDS = ["", "one", "a pair of", "three", "four", "five", "six"];

/** A hand in words, as players say it: "two pairs, kings and tens", "three 6s", "Mexican".
 * Only words: which hand beats which is the server's to say. */
export function handName(game: HandGame | undefined, dice: readonly number[]): string {
  if (!game || dice.length === 0 || dice.includes(0)) return "";
  const many = (face: number) => (game === "poker_dice" ? POKER_NAMES[face] : `${face}s`);
  const sorted = [...dice].sort((a, b) => a - b).join("");
  if (game === "mexican" || game === "mexican_two_dice") {
    if ((game === "mexican" && sorted === "123") || (game === "mexican_two_dice" && sorted === "12")) return "Mexican!";
    if (new Set(dice).size === 1) return `${game === "mexican" ? "triple" : "double"} ${many(dice[0])}`;
    return "";
  }
  // Groups by size, then face, as the hand is written.
  const groups: [number, number][] = [];
  for (const f of handOrder(game, dice)) {
    const g = groups.find((x) => x[1] === f);
    if (g) g[0] += 1;
    else groups.push([1, f]);
  }
  const [[c1, f1], second] = groups;
  if (c1 === 1) return game === "poker_dice" ? `${POKER_ONE[f1]} high` : `${f1} high`;
  const first = c1 === 2 ? `a pair of ${many(f1)}` : `${COUNT_WORDS[c1] ?? c1} ${many(f1)}`;
  if (!second || second[0] < 2) return first;
  if (c1 === 3 && second[0] === 2 && dice.length === 5) return `full house, ${many(f1)} over ${many(second[1])}`;
  if (c1 === 2 && second[0] === 2) return `two pairs, ${many(f1)} and ${many(second[1])}`;
  return `${first} and ${second[0] === 2 ? `a pair of ${many(second[1])}` : `${COUNT_WORDS[second[0]] ?? second[0]} ${many(second[1])}`}`;
}
