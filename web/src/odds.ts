// How likely a bid is from this seat's view: the same reckoning as the terminal's `odds`
// (dudo_rules::odds): the matching dice you can see (your cup, dice pushed into view; every
// cup when you may see them), and each unseen die matching with 1/faces, 2/faces where a
// wild face helps. Advice only: the server settles every call by the dice.
import type { View } from "./gen/dudo/v1/game_pb";

/** The chance that at least `quantity` dice show `face` (wilds counted). */
export function bidOdds(view: View, faces: number, quantity: number, face: number): number {
  const wild = view.wild;
  const matches = (d: number) => d === face || (wild !== undefined && wild !== face && d === wild);
  if (view.seesAllDice) {
    const known = view.allDice.reduce((n, cup) => n + cup.dice.filter(matches).length, 0);
    return known >= quantity ? 1 : 0;
  }
  let known = 0;
  let knownMatches = 0;
  const see = (d: number) => {
    known += 1;
    if (matches(d)) knownMatches += 1;
  };
  view.myDice.filter((d) => d > 0).forEach(see);
  view.players.filter((p) => p.place === undefined).forEach((p) => p.pushed.forEach(see));
  if (knownMatches >= quantity) return 1;
  const total = view.players.filter((p) => p.place === undefined).reduce((n, p) => n + p.dice, 0);
  const unknown = Math.max(0, total - known);
  const chance = (wild !== undefined && wild !== face ? 2 : 1) / faces;
  return atLeast(unknown, quantity - knownMatches, chance);
}

/** P(X ≥ k) for X ~ Binomial(n, p), summed in log space so large tables do not underflow. */
export function atLeast(n: number, k: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p >= 1) return 1;
  let logPmf = 0;
  // log C(n, k) + k log p + (n - k) log(1 - p)
  for (let i = 0; i < k; i++) logPmf += Math.log(n - i) - Math.log(i + 1);
  logPmf += k * Math.log(p) + (n - k) * Math.log1p(-p);
  let sum = 0;
  for (let i = k; i <= n; i++) {
    sum += Math.exp(logPmf);
    logPmf += Math.log(n - i) - Math.log(i + 1) + Math.log(p) - Math.log1p(-p);
  }
  return Math.min(1, sum);
}

/** "62%", "<1%", ">99%". */
export function percent(chance: number): string {
  if (chance > 0 && chance < 0.01) return "<1%";
  if (chance < 1 && chance > 0.99) return ">99%";
  return `${Math.round(chance * 100)}%`;
}
