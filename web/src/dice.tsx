// Dice drawn as dice: pips on a 3×3 grid for faces 1 to 9, or a poker die's letter; 0 is a
// die hidden under the cup.
import { faceName, faceSymbol, type HandGame } from "./hand";

// The grid's cells (0..8, row by row) that hold a pip, per face.
const PIPS: Record<number, number[]> = {
  1: [4],
  2: [0, 8],
  3: [0, 4, 8],
  4: [0, 2, 6, 8],
  5: [0, 2, 4, 6, 8],
  6: [0, 2, 3, 5, 6, 8],
  7: [0, 2, 3, 4, 5, 6, 8],
  8: [0, 1, 2, 3, 5, 6, 7, 8],
  9: [0, 1, 2, 3, 4, 5, 6, 7, 8],
};

type DieProps = {
  face: number;
  /** Marked: it counted at the reveal, or it is wild. */
  marked?: boolean;
  size?: number;
  label?: string;
  /** Poker dice are drawn with their letters (9 T J Q K A). */
  game?: HandGame;
};

export function Die({ face, marked, size = 36, label, game }: DieProps) {
  const name = label ?? faceName(game, face);
  const cls = `die${marked ? " marked" : ""}${face === 0 ? " hidden" : ""}`;
  const letter = face === 0 || game === "poker_dice";
  return (
    <svg class={cls} width={size} height={size} viewBox="0 0 30 30" role="img" aria-label={name}>
      <rect x="1" y="1" width="28" height="28" rx="6" />
      {letter ? (
        <text x="15" y="20" text-anchor="middle">
          {faceSymbol(game, face)}
        </text>
      ) : (
        (PIPS[face] ?? []).map((cell) => (
          <circle cx={7 + (cell % 3) * 8} cy={7 + Math.floor(cell / 3) * 8} r="2.6" />
        ))
      )}
    </svg>
  );
}

/** A row of dice, each marked where `marks` says. */
export function Dice({ faces, marks, size, game }: { faces: readonly number[]; marks?: boolean[]; size?: number; game?: HandGame }) {
  return (
    <span class="dice">
      {faces.map((f, i) => (
        <Die face={f} marked={marks?.[i]} size={size} game={game} />
      ))}
    </span>
  );
}

/** A bid as people say it: "three 5s", with the face drawn. */
export function BidText({ quantity, face, size = 22 }: { quantity: number; face: number; size?: number }) {
  return (
    <span class="bid">
      {quantity} × <Die face={face} size={size} />
    </span>
  );
}
