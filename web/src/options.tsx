// The host's options as a form: the Fibbing Dice table's cog menu (dice, faces, what a dudo
// and a calza cost, what losers see) and the turn clock. The front page makes a table with
// them; the host's panel changes them at the table before the start.
import { ExactCaller, type RuleSet } from "./gen/dudo/v1/rules_pb";

/** The host's options of the Fibbing Dice table's cog menu, each a rule setting. */
export type Options = {
  dice: number;
  faces: number;
  lostOnDudo: number;
  calzaWon: number;
  calzaLost: number;
  losersSee: boolean;
  results: boolean;
  hidePercent: number;
  misshowPercent: number;
};

/** Which of the host's options mean something under these rules: no calza where there is no
 * exact call, no dice lost on a dudo (nor losers) in the points game. */
type Shown = { calza: boolean; dice_lost: boolean };

export function shownFor(rules: RuleSet | undefined): Shown {
  const points = rules?.gameEnd?.end.case === "points";
  return { calza: rules?.exactCall?.who !== ExactCaller.OFF, dice_lost: !points };
}

/** The options as these rules have them. */
export function optionsOf(rules: RuleSet): Options {
  return {
    dice: rules.dice?.start ?? 5,
    faces: rules.dice?.faces ?? 6,
    lostOnDudo: rules.diceLostOnDudo || 1,
    calzaWon: rules.exactCall?.diceWon ?? 1,
    calzaLost: rules.exactCall?.diceLost ?? 1,
    losersSee: (rules.losersSeeDice ?? 0) === 0,
    results: (rules.resultsTable ?? 0) === 0,
    hidePercent: rules.fibbing?.hidePercent ?? 0,
    misshowPercent: rules.fibbing?.misshowPercent ?? 0,
  };
}

/** The options as settings, `dice.start` with `dice.max` (dice each, none won back above). */
export function settingsOf(o: Options, shown: Shown) {
  return [
    ["dice.start", o.dice],
    ["dice.max", o.dice],
    ["dice.faces", o.faces],
    ...(shown.dice_lost
      ? [
          ["dice_lost_on_dudo", o.lostOnDudo],
          ["losers_see_dice", o.losersSee ? "all_dice" : "hidden"],
        ]
      : []),
    ...(shown.calza
      ? [
          ["exact_call.dice_won", o.calzaWon],
          ["exact_call.dice_lost", o.calzaLost],
        ]
      : []),
    ["results_table", o.results ? "on" : "off"],
    ["fibbing.hide_percent", o.hidePercent],
    ["fibbing.misshow_percent", o.misshowPercent],
  ].map(([path, value]) => ({ path: String(path), value: String(value) }));
}

/** The cog menu's fields, for the common-hand games. */
export function HostOptions({ options, set, rules }: { options: Options; set: (o: Options) => void; rules: RuleSet }) {
  const change = (c: Partial<Options>) => set({ ...options, ...c });
  const shown = shownFor(rules);
  return (
    <fieldset>
      <legend>Host's options</legend>
      <Num label="Dice each" min={1} max={20} value={options.dice} set={(dice) => change({ dice })} />
      <Num label="Faces" min={3} max={9} value={options.faces} set={(faces) => change({ faces })} />
      {shown.dice_lost && (
        <Num label="Dice lost on a dudo" min={1} max={options.dice} value={options.lostOnDudo} set={(lostOnDudo) => change({ lostOnDudo })} />
      )}
      {shown.calza && (
        <>
          <Num label="Dice won on a calza" min={1} max={5} value={options.calzaWon} set={(calzaWon) => change({ calzaWon })} />
          <Num label="Dice lost on a calza" min={1} max={5} value={options.calzaLost} set={(calzaLost) => change({ calzaLost })} />
        </>
      )}
      {shown.dice_lost && (
        <label>
          <input type="checkbox" checked={options.losersSee} onChange={(e) => change({ losersSee: e.currentTarget.checked })} /> Losers see
          the dice
        </label>
      )}
      <label>
        <input type="checkbox" checked={options.results} onChange={(e) => change({ results: e.currentTarget.checked })} /> Results table
        after each round
      </label>
      <Num label="Chance a die is hidden from its owner (%)" min={0} max={100} value={options.hidePercent} set={(hidePercent) => change({ hidePercent })} />
      <Num label="Chance a die is shown wrong (%)" min={0} max={100} value={options.misshowPercent} set={(misshowPercent) => change({ misshowPercent })} />
    </fieldset>
  );
}

/** The turn clock, in seconds a move (0: none; -1: the server's own, 60 s a move and a 60 s
 * bank unless its operator chose another). With a clock, a player who walks away has their
 * default move made when it runs out, and is taken out after a whole round away. */
export function ClockChoice({ value, set }: { value: number; set: (secs: number) => void }) {
  return (
    <label>
      Clock{" "}
      <select value={String(value)} onChange={(e) => set(Number(e.currentTarget.value))} aria-describedby="clock-said">
        <option value="-1">the server's (usually 60 s a move)</option>
        <option value="30">30 s a move</option>
        <option value="60">60 s a move</option>
        <option value="120">2 min a move</option>
        <option value="300">5 min a move</option>
        <option value="0">no clock</option>
      </select>{" "}
      <span id="clock-said" class="summary">
        {value !== 0
          ? "plus a bank each; when it runs out the default move is made, so nobody can freeze the game"
          : "nobody's moves are ever made for them: a player who walks away holds the game up until you remove them"}
      </span>
    </label>
  );
}

function Num(props: { label: string; min: number; max: number; value: number; set: (n: number) => void }) {
  return (
    <label>
      {props.label}{" "}
      <input
        type="number"
        min={props.min}
        max={props.max}
        value={props.value}
        onInput={(e) => props.set(Number(e.currentTarget.value))}
      />
    </label>
  );
}
