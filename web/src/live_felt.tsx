// The live table's felt: the seats as the server last described them (who is here, the dice
// under each cup, who is to move and their clock), and in the middle what the table is at
// now: the bid to beat, the reveal's count and what it settled, the wait for the next round,
// the pause, the winner and "Play again".
import { useEffect, useRef, useState } from "preact/hooks";
import { as, lobby, say, type Held } from "./api";
import { reducedMotion } from "./cues";
import { CupBoard, HandShown } from "./cup";
import { BidText, Die } from "./dice";
import { Felt, type FeltSeat } from "./felt";
import { PalificoFaceChange, type RuleSet } from "./gen/dudo/v1/rules_pb";
import type { PlayerView, View } from "./gen/dudo/v1/game_pb";
import { TableState as WireState, type SeatInfo } from "./gen/dudo/v1/service_pb";
import type { HandGame } from "./hand";
import { bidOdds, percent } from "./odds";
import { REACTIONS } from "./reactions";
import type { Session, TableState } from "./session";

type Names = { name: (seat: number) => string };

export function useNow(every = 250): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), every);
    return () => clearInterval(t);
  }, [every]);
  return now;
}

/** A bubble shows what a seat said for this long. */
const BUBBLE_MS = 5000;

/** Whether the felt shows the last reveal's dice: until the next round begins. */
export function revealShown(state: TableState): boolean {
  const view = state.view;
  return !!state.reveal && !!view && (state.nextRound !== undefined || view.over || state.revealRound === view.round);
}

export function LiveFelt({ state, held, session, game, odds }: { state: TableState; held?: Held; session: Session; game?: HandGame; odds: boolean }) {
  const table = state.table!;
  const view = state.view;
  // Once a second: the clock's ring glides between (its transition), the bubbles go.
  const now = useNow(1000);
  const felt = useRef<HTMLDivElement>(null);
  const mine = held?.seated ? state.seat : undefined;
  const showing = revealShown(state);
  const reveal = showing ? state.reveal : undefined;
  // On a phone the reveal may be off screen: bring the table to the top as it happens.
  const lastReveal = state.cues.filter((c) => c.kind === "reveal").at(-1)?.id;
  useEffect(() => {
    const el = felt.current;
    if (!el || lastReveal === undefined) return;
    const box = el.getBoundingClientRect();
    // At once, not smoothly: a smooth scroll is cut short by what the reveal adds to the page.
    if (box.top < 0 || box.bottom > innerHeight) el.scrollIntoView({ block: "start" });
  }, [lastReveal]);
  // Your turn, or the game's first deal, with the move out of view (a host's page is often
  // scrolled down at the host's panel): bring your move up, with as much of the felt as fits.
  const lastTurn = state.cues.filter((c) => c.kind === "turn").at(-1)?.id;
  useEffect(() => {
    const el = felt.current;
    if (!el || lastTurn === undefined) return;
    const move = el.closest(".play-area")?.querySelector<HTMLElement>(".actions");
    const f = el.getBoundingClientRect();
    const m = move?.getBoundingClientRect();
    const bottom = m ? m.bottom : f.bottom;
    if (f.top >= 0 && bottom <= innerHeight) return;
    const by = bottom - f.top > innerHeight ? bottom - innerHeight : f.top;
    scrollBy({ top: by, behavior: reducedMotion() ? "auto" : "smooth" });
  }, [lastTurn]);
  const playing = view && !view.over;
  const n = table.players.length;
  // The cups lift from the caller's seat on, in the order of play.
  const caller = state.caller ?? 0;
  const lifting = reveal ? table.players.filter((p) => (reveal.dice[p.seat]?.dice.length ?? 0) > 0).map((p) => p.seat) : [];
  lifting.sort((a, b) => ((a - caller + n) % n) - ((b - caller + n) % n));
  const mexican = game === "mexican" || game === "mexican_two_dice";
  const seats: FeltSeat[] = table.players.map((p) => {
    const pv = view?.players[p.seat];
    const you = mine === p.seat;
    const lit = !!playing && view.turn === p.seat && state.nextRound === undefined && !table.pause;
    const faces = reveal
      ? reveal.dice[p.seat]?.dice
      : you && view?.myDice.length
        ? view.myDice
        : view?.seesAllDice
          ? view.allDice[p.seat]?.dice
          : undefined;
    const said = state.talk.filter((t) => t.seat === p.seat && now - t.heard < BUBBLE_MS).at(-1);
    return {
      seat: p.seat,
      name: p.name,
      you,
      // At a reveal, the dice that were under the cup: the one lost leaves once the cups are up.
      dice: game ? 0 : reveal ? (reveal.dice[p.seat]?.dice.length ?? 0) : (pv?.dice ?? (table.state === WireState.WAITING ? (table.rules?.dice?.start ?? 0) : 0)),
      faces: game ? undefined : faces,
      marks: reveal?.counted[p.seat]?.dice,
      counted: reveal?.counted[p.seat]?.count,
      lifted: !!reveal && (reveal.dice[p.seat]?.dice.length ?? 0) > 0,
      liftOrder: Math.max(0, lifting.indexOf(p.seat)),
      pushed: pv?.pushed,
      lit,
      opens: playing && !reveal && view.starter === p.seat ? (view.claims.length === 0 && !view.hand?.claim ? "opens" : "opened") : undefined,
      notes: notesOf(p, pv, state, !!game, mexican, now, !!reveal),
      out: !!(p.left || pv?.left || (pv?.place && pv.place > 1)),
      here: p.bot || p.left ? undefined : p.connected ? "here" : "away",
      clock: lit && state.deadline && state.deadline > now ? { left: state.deadline - now, full: state.deadline - (state.deadlineFrom ?? now) } : undefined,
      said: said ? (said.reaction ? (REACTIONS.find(([r]) => r === said.reaction)?.[1] ?? said.text) : said.text) : undefined,
    };
  });
  const free = table.state === WireState.WAITING ? Math.max(0, table.seats - n) : 0;
  return (
    <div ref={felt} class="felt-wrap">
      <Felt
        seats={seats}
        free={free}
        cues={state.cues}
        game={game}
        from={mine ?? table.players[0]?.seat}
        cupAt={game && playing ? view.hand?.holder : undefined}
        center={<Middle state={state} held={held} session={session} game={game} odds={odds} now={now} />}
      />
    </div>
  );
}

/** A seat's small words: host, here or away, palifico, its standing. */
function notesOf(p: SeatInfo, pv: PlayerView | undefined, state: TableState, handGame: boolean, mexican: boolean, now: number, revealing: boolean): string[] {
  const table = state.table!;
  const view = state.view;
  const plural = (n: number | bigint, one: string, many: string) => `${n} ${n === 1 || n === 1n ? one : many}`;
  const away = () => {
    if (p.left) return "left";
    if (p.leaving) return "leaving at the round's end";
    if (p.bot || p.connected) return "";
    const since = Number(p.awaySinceUnixMillis);
    const secs = since > 0 ? Math.max(0, Math.round((now - since) / 1000)) : 0;
    return secs < 60 ? `away ${secs} s` : `away ${Math.floor(secs / 60)} min`;
  };
  return [
    table.host === p.seat ? "host" : "",
    away(),
    pv?.watching ? "watching" : "",
    // The next round's palifico is news after the reveal, not during it.
    view?.palifico.includes(p.seat) && !view.over && !revealing ? "palifico" : "",
    pv?.place === 1 ? "winner" : pv?.place ? `out, place ${pv.place}` : "",
    pv && pv.score !== 0n ? plural(pv.score, "point", "points") : "",
    pv && pv.lives > 0 && !mexican && handGame ? plural(pv.lives, "life", "lives") : "",
    pv && pv.drinks > 0 ? plural(pv.drinks, "drink", "drinks") : "",
  ].filter(Boolean);
}

/** The middle of the table: what it is at now. */
function Middle({ state, held, session, game, odds, now }: { state: TableState; held?: Held; session: Session; game?: HandGame; odds: boolean; now: number }) {
  const table = state.table!;
  const view = state.view;
  const name = session.name;
  if (!view) {
    const host = table.players.find((p) => p.seat === table.host)?.name;
    return (
      <p class="middle-note">
        {table.state === WireState.WAITING ? `Waiting for ${host ?? "the host"} to start the game.` : "The game is starting…"}
      </p>
    );
  }
  if (view.over) return <GameOver state={state} held={held} />;
  const reveal = revealShown(state) ? state.reveal : undefined;
  return (
    <div class="middle">
      {table.pause && <p class="middle-paused">Paused</p>}
      {reveal && (
        <div class="reveal-count" aria-label="What the reveal counted">
          {reveal.face !== undefined && reveal.total !== undefined && (
            <p class="big-count settles">
              {reveal.total} × <Die face={reveal.face} size={30} /> <span class="summary">counted</span>
            </p>
          )}
          {state.outcome && state.outcome.length > 0 && <p class="outcome-line settles">{state.outcome[0]}</p>}
        </div>
      )}
      {game && state.challenge && state.nextRound !== undefined && <Lifted state={state} game={game} name={name} />}
      {state.nextRound !== undefined && <NextRound state={state} session={session} held={held} name={name} round={game ? "hand" : "round"} />}
      {!reveal && state.nextRound === undefined && (game ? <CupBoard view={view} game={game} name={name} /> : <BidNow state={state} view={view} name={name} odds={odds} />)}
      {state.window && state.window > now && <p class="countdown">Calls out of turn close in {Math.ceil((state.window - now) / 1000)} s</p>}
      <AwayToMove state={state} name={name} />
    </div>
  );
}

/** The hand games' lifted cup, in the middle while the next hand waits: the claim, what was
 * under the cup, and who was right. */
function Lifted({ state, game, name }: { state: TableState; game: HandGame } & Names) {
  const c = state.challenge!;
  // Who lifted (the caller) and whose claim it was (the other of the two).
  const lifter = state.caller;
  const claimer = lifter === c.winner ? c.loser : c.winner;
  // What the lift cost (a life lost, drinks), as the engine told it.
  const lost = state.outcome ?? [];
  return (
    <div class="lifted-cup settles" aria-label="The cup was lifted">
      {lifter !== undefined && (
        <p class="by">
          {name(lifter)} lifted {name(claimer)}'s cup
        </p>
      )}
      <p class="by">
        Claimed {c.claim && <HandShown dice={c.claim.dice} game={game} />}
      </p>
      <p class="by">Under the cup: {c.hand && <HandShown dice={c.hand.dice} game={game} />}</p>
      <p class="outcome-line">
        {name(c.winner)} was right{lost.length > 0 ? `: ${lost.join("; ")}` : `; ${name(c.loser)} loses`}.
      </p>
    </div>
  );
}

/** The bid to beat, drawn big; who made it; the round, the wild face, a palifico round. */
function BidNow({ state, view, name, odds }: { state: TableState; view: View; odds: boolean } & Names) {
  const rules = state.table?.rules;
  const points = rules?.gameEnd?.end.case === "points";
  const bid = view.currentBid;
  const last = view.claims.at(-1);
  const lastPass = last?.kind.case === "pass" ? last.seat : undefined;
  const faces = odds ? rules?.dice?.faces : undefined;
  const bidCue = state.cues.filter((c) => c.kind === "bid").at(-1)?.id;
  return (
    <>
      {view.palifico.length > 0 && <PalificoBanner view={view} name={name} rules={rules} />}
      <div class="bid-now to-beat" key={bidCue}>
        {bid?.bid ? (
          <>
            <p class="by">
              {name(bid.seat)} {points ? "guessed" : "bid"}{" "}
            </p>
            <p class="big-bid">
              <BidText quantity={bid.bid.quantity} face={bid.bid.face} size={36} />
            </p>
            {(faces || lastPass !== undefined) && (
              <p class="by">
                {faces && <span class="odds">{percent(bidOdds(view, faces, bid.bid.quantity, bid.bid.face))} likely true</span>}
                {lastPass !== undefined && <> · {name(lastPass)} passed</>}
              </p>
            )}
          </>
        ) : (
          <p class="by">
            No {points ? "guess" : "bid"} yet: {name(view.starter)} opens.
          </p>
        )}
      </div>
      <p class="round">
        Round {view.round} · {view.players.reduce((n, p) => n + p.dice, 0)} dice in play
        {view.wild !== undefined && <> · wild: {view.wild}s</>}
        {rules?.gameEnd?.end.case === "points" && <> · first to exactly {rules.gameEnd.end.value} points</>}
      </p>
    </>
  );
}

/** A palifico round, announced on the board: whose it is, that ones are not wild, and how
 * the face is held after the opening bid. */
function PalificoBanner({ view, name, rules }: { view: View; rules?: RuleSet } & Names) {
  const who = view.palifico.map(name).join(" and ");
  return (
    <div class="palifico" role="note" aria-label="Palifico round">
      <strong>Palifico round</strong> for {who}. {view.wild === undefined ? "Ones are not wild. " : `Wild: ${view.wild}s. `}
      {palificoFace(rules)}
    </div>
  );
}

/** How the face is held in a palifico round, under these rules. */
export function palificoFace(rules?: RuleSet): string {
  switch (rules?.palifico?.faceChange) {
    case PalificoFaceChange.LOCKED:
      return "The opening bid fixes the face: after it, only the quantity goes up.";
    case PalificoFaceChange.ONE_DIE_PLAYERS_MAY_CHANGE:
      return "The opening bid fixes the face, except for players down to one die, who bid as usual.";
    default:
      return "The opening bid fixes the face, except for a player who has had a palifico round before, who may raise it.";
  }
}

/** Says so when the player to move is away: why the game waits, and what happens next (the
 * story is the game's, alike for everyone; presence is told here, as it stands). */
function AwayToMove({ state, name }: { state: TableState } & Names) {
  const turn = state.view?.over ? undefined : state.view?.turn;
  const seat = state.table?.players.find((p) => p.seat === turn);
  if (!seat || seat.bot || seat.connected || seat.left) return null;
  const next = seat.leaving
    ? "their moves are played for them until the round ends"
    : (state.table?.moveMillis ?? 0) > 0
      ? "when their clock runs out their default move is made for them"
      : "this table has no clock: the host may remove them";
  return (
    <p class="countdown" role="status">
      {name(seat.seat)} is away (no connection): {next}.
    </p>
  );
}

/** After a showdown the next round waits for everyone to see it: how long, who has, and "Next". */
function NextRound({ state, session, held, name, round }: { state: TableState; session: Session; held?: Held; round: "round" | "hand" } & Names) {
  const now = useNow(250);
  const secs = Math.max(0, Math.ceil((state.nextRound! - now) / 1000));
  // A pause stops the wait with every clock: the next round waits for the resume.
  if (state.table?.pause) {
    return (
      <div class="next-round settles" aria-live="polite">
        <p>The next {round} begins once the game is resumed.</p>
      </div>
    );
  }
  const seen = held?.seated && state.seat !== undefined && state.ready.includes(state.seat);
  const people = state.table?.players.filter((p) => !p.bot && !p.left && p.connected) ?? [];
  const waitingFor = people.filter((p) => !state.ready.includes(p.seat)).map((p) => (held?.seated && p.seat === state.seat ? "you" : p.name));
  return (
    <div class="next-round settles" aria-live="polite">
      <p>
        The next {round} begins in <strong>{secs} s</strong>
        {waitingFor.length > 0 ? (
          <>
            , or once everyone has seen this<span class="waiting-for"> (waiting for {waitingFor.join(" and ")})</span>.
          </>
        ) : (
          "."
        )}
      </p>
      {held?.seated && (
        <button
          type="button"
          class="next"
          disabled={seen}
          onClick={(e) => {
            e.stopPropagation();
            void session.next();
          }}
        >
          {seen ? "Seen: waiting for the others" : round === "hand" ? "Next hand" : "Next round"}
        </button>
      )}
      {state.ready.length > 0 && <p class="summary">Seen by {state.ready.map((s) => (held?.seated && s === state.seat ? "you" : name(s))).join(", ")}.</p>}
    </div>
  );
}

/** Game over: who won, and for the host, another game with the same seats and rules. */
function GameOver({ state, held }: { state: TableState; held?: Held }) {
  const table = state.table!;
  const [error, setError] = useState<string>();
  const winner = state.view?.standings[0];
  const host = held && (held.seated ? state.seat === table.host : true);
  const name = (seat?: number) => table.players.find((p) => p.seat === seat)?.name ?? "";
  const you = held?.seated && winner === state.seat;
  return (
    <section class="game-over" aria-label="Game over">
      <h2>{winner !== undefined ? (you ? "You win the game!" : `${name(winner)} wins the game!`) : "Game over"}</h2>
      {state.view && state.view.standings.length > 0 && (
        <ol class="standings" aria-label="Standings">
          {state.view.standings.map((s) => (
            <li>{name(s)}</li>
          ))}
        </ol>
      )}
      {host ? (
        <button
          type="button"
          class="next"
          onClick={async (e) => {
            e.stopPropagation();
            setError(undefined);
            try {
              await lobby.resetTable({ table: table.id }, as(held!.token));
              await lobby.startGame({ table: table.id }, as(held!.token));
            } catch (err) {
              setError(say(err));
            }
          }}
        >
          Play again (same seats and rules)
        </button>
      ) : (
        <p class="summary">The host may start another game with the same seats.</p>
      )}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
