// The individual-hand games' table (poker dice, the Stanford game, Mexican): one cup passed
// round with a claim, taken or lifted. What may be done comes from the prompt's `legal`;
// which claim is high enough is the server's to say (it refuses a lower one by name).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { useState } from "preact/hooks";
import { Dice, Die } from "./dice";
import { ActionSchema, type Legal, type View } from "./gen/dudo/v1/game_pb";
import { faceSymbol, handDice, handName, handOrder, handText, type HandGame } from "./hand";
import { Undercall } from "./gen/dudo/v1/rules_pb";
import type { Session, TableState } from "./session";
import { useFocusOnArrival } from "./focus";

type ActionInit = MessageInitShape<typeof ActionSchema>["action"];
type Names = { name: (seat: number) => string };

/** The cup: who holds it, its dice as this viewer sees them, the claim in force. */
export function CupBoard({ view, game, name }: { view: View; game: HandGame } & Names) {
  const hand = view.hand;
  const n = handDice(game);
  const dice = hand?.dice.length ? hand.dice : Array.from({ length: n }, () => 0);
  const inView = hand?.shown ?? [];
  const claim = hand?.claim;
  return (
    <div class="cup-board">
      <p class="round">
        Hand {view.round}
        {hand && !view.over && <> · {name(hand.holder)} holds the cup</>}
        {hand?.fiveAcesTries !== undefined && <> · five aces, try {hand.fiveAcesTries + 1} of 3</>}
      </p>
      {!view.over && (
        <div class="cup" aria-label="The cup">
          <Dice faces={dice} marks={inView} game={game} />
        </div>
      )}
      {!view.over && inView.some(Boolean) && <p class="summary">Marked dice are in view of everyone.</p>}
      <div class="to-beat">
        {view.over ? null : claim?.hand ? (
          <>
            {name(claim.seat)} claims <HandShown dice={claim.hand.dice} game={game} />
          </>
        ) : (
          "No claim yet this hand."
        )}
      </div>
    </div>
  );
}

/** A hand written as players write it, and drawn. */
export function HandShown({ dice, game }: { dice: readonly number[]; game: HandGame }) {
  return (
    <span class="bid">
      <strong>{handText(game, dice)}</strong> <Dice faces={handOrder(game, dice)} size={22} game={game} />
      {handName(game, dice) && <span class="hand-name"> ({handName(game, dice)})</span>}
    </span>
  );
}

/** The moves of the cup's holder (or of the next seat, offered the cup). */
export function CupActions({ legal, state, session, game }: { legal: Legal; state: TableState; session: Session; game: HandGame }) {
  const n = handDice(game);
  const panel = useFocusOnArrival<HTMLElement>();
  const send = (action: ActionInit) => void session.act(create(ActionSchema, { action }));
  const hand = state.view?.hand;
  const seen = hand?.dice ?? [];
  const [reroll, setReroll] = useState<boolean[]>([]);
  const [show, setShow] = useState<boolean[]>([]);
  const weakest = legal.claimFrom?.dice ?? [];
  const [picked, setPicked] = useState<number[] | undefined>(undefined);
  const claim = picked && picked.length === n ? picked : weakest.length === n ? weakest : Array.from({ length: n }, () => 1);
  const knowsAll = seen.length === n && seen.every((d) => d > 0);
  const roll = legal.roll;
  const positions = (marks: boolean[]) => marks.flatMap((m, i) => (m ? [i] : []));
  const cost = roll && roll.drinks > 0 ? ` (costs ${roll.drinks} ${roll.drinks === 1 ? "drink" : "drinks"})` : "";
  return (
    <section class="actions panel" aria-label="Your move" ref={panel}>
      <h2>{legal.accept ? "The cup comes to you: lift it, or take it and pass it on" : "Your move"}</h2>
      {legal.accept && (
        <p class="summary">Taking it, you may roll (below) or pass it on at once with a claim of your own.</p>
      )}
      <div class="calls">
        {legal.dudo.length > 0 && (
          <button type="button" class="call" onClick={() => send({ case: "dudo", value: { target: legal.dudo[0] } })}>
            Lift the cup!
          </button>
        )}
        {legal.accept && (
          <button type="button" onClick={() => send({ case: "accept", value: {} })}>
            Take the cup
          </button>
        )}
        {roll?.all && (
          <button
            type="button"
            onClick={() => send({ case: "roll", value: { dice: Array.from({ length: n }, (_, i) => i), show: positions(show) } })}
          >
            Roll {roll.mayShow ? "" : "all "}the dice{cost}
          </button>
        )}
        {legal.dogsLife && (
          <>
            <p class="summary">
              You have lost your last life. The dog's life is on offer: bark like a dog and play on with one life, or decline it
              and leave the game (it then stays on offer for the next player to lose their last life). Taken, it is gone for
              everyone.
            </p>
            <button type="button" onClick={() => send({ case: "dogsLife", value: { bark: true } })}>
              Bark (take the dog's life)
            </button>
            <button type="button" onClick={() => send({ case: "dogsLife", value: { bark: false } })}>
              Decline the dog's life
            </button>
          </>
        )}
      </div>
      {roll && (!roll.all || roll.mayShow) && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            send({ case: "roll", value: { dice: roll.all ? Array.from({ length: n }, (_, i) => i) : positions(reroll), show: positions(show) } });
            setReroll([]);
            setShow([]);
          }}
        >
          <fieldset>
            <legend>{roll.all ? "Leave these in view after the roll (optional)" : "Roll again the dice you tick"}</legend>
            {Array.from({ length: n }, (_, i) => (
              <span class="pick-die">
                <Die face={seen[i] ?? 0} size={28} game={game} marked={hand?.shown[i]} />
                {!roll.all && (
                  <label class="pick">
                    <input type="checkbox" checked={!!reroll[i]} onChange={(e) => setReroll(with_(reroll, i, e.currentTarget.checked))} />
                    re-roll
                  </label>
                )}
                {roll.mayShow && (
                  <label class="pick">
                    <input type="checkbox" checked={!!show[i]} onChange={(e) => setShow(with_(show, i, e.currentTarget.checked))} />
                    in view
                  </label>
                )}
              </span>
            ))}
          </fieldset>
          {!roll.all && (
            <button type="submit" disabled={!reroll.some(Boolean)}>
              {positions(reroll).length === 0
                ? "Tick the dice to roll"
                : `Roll ${positions(reroll).length} ${positions(reroll).length === 1 ? "die" : "dice"}${cost}`}
            </button>
          )}
          {roll.all && <button type="submit">Roll, leaving the ticked dice in view{cost}</button>}
        </form>
      )}
      {legal.claimFrom && (
        <form
          class="claim-form"
          onSubmit={(e) => {
            e.preventDefault();
            send({ case: "claim", value: { dice: claim } });
            setPicked(undefined);
          }}
        >
          <p>
            Pass the cup with a claim of at least <strong>{handText(game, weakest)}</strong>
            {legal.claimTo && <> and at most <strong>{handText(game, legal.claimTo.dice)}</strong></>}.{" "}
            {state.table?.rules?.hand?.undercall === Undercall.REFUSED
              ? "A lower claim is refused."
              : "A lower claim (an undercall) counts as the least one allowed."}
          </p>
          <div class="calls">
            <button type="button" onClick={() => send({ case: "claim", value: { dice: weakest } })}>
              Claim {handText(game, weakest)}
              {handName(game, weakest) && ` (${handName(game, weakest)})`}
            </button>
            {knowsAll && legal.claimHeld && (
              <button type="button" onClick={() => send({ case: "claim", value: { dice: seen } })}>
                Claim what is there: {handText(game, seen)}
                {handName(game, seen) && ` (${handName(game, seen)})`}
              </button>
            )}
          </div>
          <fieldset>
            <legend>Or name a hand</legend>
            {claim.map((face, i) => (
              <select
                aria-label={`Die ${i + 1} of the claim`}
                value={face}
                onChange={(e) => setPicked(with_(claim, i, Number(e.currentTarget.value)))}
              >
                {[1, 2, 3, 4, 5, 6].map((f) => (
                  <option value={f}>{faceSymbol(game, f)}</option>
                ))}
              </select>
            ))}
            <button type="submit">
              Claim {handText(game, claim)}
              {handName(game, claim) && ` (${handName(game, claim)})`}
            </button>
          </fieldset>
        </form>
      )}
    </section>
  );
}

function with_<T>(list: readonly T[], i: number, value: T): T[] {
  const next = [...list];
  next[i] = value;
  return next;
}
