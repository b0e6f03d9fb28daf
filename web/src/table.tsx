// A table in the browser: join by its link, play from the prompt, watch, host.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { as, codeOf, forget, heldAt, history, keep, lastName, lobby, presetTitles, rememberName, say, type Held } from "./api";
import { NotifySwitch, SoundSwitch, useAttention } from "./attention";
import { CupActions, HandShown } from "./cup";
import { BidText, Dice, Die } from "./dice";
import { handGame, type HandGame } from "./hand";
import { HowToPlay } from "./howto";
import { useFocusOnArrival } from "./focus";
import { settleMillis } from "./felt";
import { LiveFelt, revealShown, useNow } from "./live_felt";
import { OtherRules, ruleLines } from "./lobby";
import { HostOptions, optionsOf, settingsOf, shownFor, type Options } from "./options";
import { bidOdds, percent } from "./odds";
import { REACTIONS } from "./reactions";
import { ActionSchema, type Legal } from "./gen/dudo/v1/game_pb";
import { PassClaim } from "./gen/dudo/v1/rules_pb";
import { Reaction, TableState as WireState, type TableInfo } from "./gen/dudo/v1/service_pb";
import { Session, type TableState, type Talk } from "./session";

type ActionInit = MessageInitShape<typeof ActionSchema>["action"];

function useSession(tableId: string | undefined, held: Held | undefined): [TableState | undefined, Session | undefined] {
  const session = useMemo(() => (tableId ? new Session(tableId, held) : undefined), [tableId, held?.token]);
  const [state, setState] = useState<TableState | undefined>(session?.state);
  useEffect(() => {
    if (!session) return;
    setState(session.state);
    const off = session.subscribe(() => setState(session.state));
    return () => {
      off();
      session.close();
    };
  }, [session]);
  return [state, session];
}

/** Odds on request: shown once asked for, and remembered in this browser. */
function useOdds(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => localStorage.getItem("dudo.odds") === "on");
  return [
    on,
    (next: boolean) => {
      localStorage.setItem("dudo.odds", next ? "on" : "off");
      setOn(next);
    },
  ];
}

/** The secret of a seat's rejoin link this page was opened with (`#rejoin=…`), if any. */
function rejoinSecret(): string | undefined {
  const m = /[#&]rejoin=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : undefined;
}

export function TablePage({ code }: { code: string }) {
  const [held, setHeld] = useState<Held | undefined>(() => (rejoinSecret() ? undefined : heldAt(code)));
  const [tableId, setTableId] = useState<string | undefined>(held?.table);
  const [error, setError] = useState<string>();
  const [rejoinNote, setRejoinNote] = useState<string>();
  // Opened with a seat's own link: that seat, on this device (the secret leaves the address bar).
  useEffect(() => {
    const rejoin = rejoinSecret();
    if (!rejoin) return;
    window.history.replaceState(null, "", location.pathname);
    lobby
      .joinTable({ table: code, rejoin })
      .then((joined) => {
        const info = joined.table!;
        const mine: Held = {
          table: info.id,
          code: info.joinCode,
          token: joined.token,
          seat: joined.seat,
          seated: true,
          name: info.players.find((p) => p.seat === joined.seat)?.name ?? "",
        };
        keep(mine);
        setHeld(mine);
        setTableId(info.id);
      })
      .catch((e) => {
        if (codeOf(e) !== "no_such_link") return setError(say(e));
        // The table is there; the link is not a seat's any more: watch it, and say why.
        setRejoinNote(
          "This seat link no longer works: the host revoked it, or its seat made a newer one. You are watching; ask for a new link to play.",
        );
        lobby
          .getTable({ table: code })
          .then((t) => setTableId(t.id))
          .catch((e2) => setError(say(e2)));
      });
  }, [code]);
  useEffect(() => {
    if (tableId || rejoinSecret()) return;
    lobby
      .getTable({ table: code })
      .then((t) => setTableId(t.id))
      .catch((e) => setError(say(e)));
  }, [code, tableId]);
  const [state, session] = useSession(tableId, held);
  useAttention(state, code, !!held?.seated);
  const [titles, setTitles] = useState<Map<string, string>>();
  useEffect(() => void presetTitles().then(setTitles), []);
  const [odds, setOdds] = useOdds();
  // A seat that is gone (left, removed, taken out): say why, and watch the table from here on.
  const [goneNote, setGoneNote] = useState<string>();
  useEffect(() => {
    if (held && state?.seatGone) {
      setGoneNote(state.ended);
      setHeld(undefined);
    }
  }, [state?.seatGone]);
  if (error) {
    return (
      <section class="panel">
        <h1>No such table</h1>
        <p role="alert">{error}</p>
        <p>
          <a href="/">Back to the tables</a>
        </p>
      </section>
    );
  }
  if (!state?.table) return <p>Finding table {code}…</p>;
  const table = state.table;
  const game = handGame(table.rules);
  const gone = state.ended;
  return (
    <div class="table-page">
      <header class="bar">
        <a href="/">dudo</a>
        <span>
          {titles?.get(table.rules?.name ?? "") || table.rules?.name} · table <strong>{table.joinCode}</strong>
        </span>
        <span class="clock">{table.moveMillis > 0 ? `clock: ${clockWords(table)}` : "no clock"}</span>
        <CopyLink link={`${location.origin}/t/${table.joinCode}`} />
        <SoundSwitch />
        <span class={`link ${state.link}`}>
          {gone ? "ended" : state.link === "live" ? "connected" : state.link === "lost" ? "reconnecting…" : "connecting…"}
        </span>
      </header>
      {goneNote && <p role="alert" class="alert">{goneNote}</p>}
      {rejoinNote && <p role="alert" class="alert">{rejoinNote}</p>}
      {gone && <p role="alert" class="alert">{gone}</p>}
      {table.seeded && (
        <p class="alert">This table was made with a seed: whoever knows it can work out every cup. Fine for practice, not for play that counts.</p>
      )}
      {!held && !gone && table.state === WireState.WAITING && table.players.length < table.seats && (
        <JoinForm
          table={table}
          onJoined={(h) => {
            setGoneNote(undefined);
            setHeld(h);
          }}
        />
      )}
      {!held && (table.state !== WireState.WAITING || table.players.length >= table.seats) && (
        <p class="summary">You are watching: you see what every spectator sees, no hidden dice.</p>
      )}
      <div class="play-area">
        {session && <LiveFelt state={state} held={held} session={session} game={game} odds={odds} />}
        <div class="side">
          {held?.seated && state.prompt?.legal && session && game && (
            <CupActions key={String(state.prompt.lastSeq)} legal={state.prompt.legal} state={state} session={session} game={game} />
          )}
          {held?.seated && state.prompt?.legal && session && !game && (
            <Actions key={String(state.prompt.lastSeq)} legal={state.prompt.legal} state={state} session={session} odds={odds} />
          )}
          {state.refused && (
            <p role="alert" class="alert">
              Refused: {state.refused}
            </p>
          )}
          {table.pause && session && <PauseBanner table={table} held={held} state={state} />}
          {session && <TalkPanel state={state} session={session} held={held} />}
        </div>
      </div>
      {state.view && !game && !state.view.over && (
        <p class="odds-toggle">
          <label>
            <input type="checkbox" checked={odds} onChange={(e) => setOdds(e.currentTarget.checked)} /> Show the odds (from what
            you can see)
          </label>
        </p>
      )}
      {state.reveal && session && <Reveal state={state} name={session.name} />}
      {state.challenge && session && game && <Challenge state={state} game={game} name={session.name} />}
      {state.results && session && <ResultsTable state={state} name={session.name} />}
      {state.view?.over && <ReplayLink table={table} overAt={state.overAt} />}
      <Story lines={state.lines} />
      {held?.seated && (
        <div class="seat-tools">
          <NotifySwitch />
          <SeatLink table={table} held={held} />
          {/* The host keeps their seat before the start: the table is theirs to start or close. */}
          {!(table.state === WireState.WAITING && state.seat === table.host) && (
            <LeaveButton
              table={table}
              held={held}
              // After a round's first bid (or claim) the seat plays the round out by default first.
              midRound={!!state.view && !state.view.over && !!(state.view.currentBid || state.view.hand?.claim)}
              leaving={!!table.players.find((p) => p.seat === state.seat)?.leaving}
              onLeft={() => setHeld(undefined)}
            />
          )}
        </div>
      )}
      {held && (held.seated ? state.seat === table.host : true) && <HostPanel table={table} held={held} over={!!state.view?.over} />}
      {table.rules && <HowToPlay rules={table.rules} open={table.state === WireState.WAITING} />}
    </div>
  );
}

function CopyLink({ link }: { link: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(link);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          prompt("Copy this link for your friends:", link);
        }
      }}
    >
      {copied ? "Link copied" : "Copy the link"}
    </button>
  );
}

function JoinForm({ table, onJoined }: { table: TableInfo; onJoined: (h: Held) => void }) {
  const [name, setName] = useState(lastName());
  const [error, setError] = useState<string>();
  return (
    <form
      class="panel"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const joined = await lobby.joinTable({ table: table.id, name });
          rememberName(name);
          const held: Held = {
            table: table.id,
            code: table.joinCode,
            token: joined.token,
            seat: joined.seat,
            seated: true,
            name: joined.table?.players.find((p) => p.seat === joined.seat)?.name ?? name,
          };
          keep(held);
          onJoined(held);
        } catch (err) {
          setError(say(err));
        }
      }}
    >
      <label>
        Your name <input value={name} maxLength={32} onInput={(e) => setName(e.currentTarget.value)} required />
      </label>
      <button type="submit">Sit down</button>
      {error && <p role="alert">{error}</p>}
    </form>
  );
}

/** The table's clock in words: "60 s a move, 60 s bank". */
function clockWords(t: TableInfo): string {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  return t.timeBankMillis > 0 ? `${s(t.moveMillis)} a move, ${s(t.timeBankMillis)} bank` : `${s(t.moveMillis)} a move`;
}

type Names = { name: (seat: number) => string };

/** The finished game's record, once the server has written it (none without a database). */
function ReplayLink({ table, overAt }: { table: TableInfo; overAt?: number }) {
  const [game, setGame] = useState<string>();
  useEffect(() => {
    // A name at this table finds its games; the newest there is this one.
    const player = table.players[0]?.name;
    if (!player) return;
    let tries = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = () => {
      history.listGames({ player, limit: 10 }).then(
        (r) => {
          // A game seen to end here is no older than that (an earlier game at this table is not it).
          const found = r.games.find((g) => g.tableId === table.id && (!overAt || Number(g.finishedUnixMillis) >= overAt - 5000));
          if (found) setGame(found.id);
          else if (++tries < 5) timer = setTimeout(look, 1000);
        },
        () => {},
      );
    };
    look();
    return () => clearTimeout(timer);
  }, [table.id, overAt]);
  return game ? (
    <p>
      <a href={`/g/${encodeURIComponent(game)}`}>Replay this game, every cup shown</a>
    </p>
  ) : null;
}

/** The last lifted cup: the claim against what was under it. */
function Challenge({ state, game, name }: { state: TableState; game: HandGame } & Names) {
  const c = state.challenge!;
  return (
    <section class="reveal panel" aria-label="The last challenge">
      <h2>The cup was lifted</h2>
      <p>
        Claimed: {c.claim && <HandShown dice={c.claim.dice} game={game} />}
      </p>
      <p>
        Under the cup: {c.hand && <HandShown dice={c.hand.dice} game={game} />}
      </p>
      <p>
        <strong>{name(c.winner)}</strong> wins; <strong>{name(c.loser)}</strong> loses.
      </p>
    </section>
  );
}

/** What a pass claims under these rules (the house rules' pass is not a skip). */
function passClaim(rules: TableInfo["rules"]): string | undefined {
  switch (rules?.pass?.claim) {
    case PassClaim.ALL_SAME_FACE:
      return "claims all your dice show the same face; wilds do not help";
    case PassClaim.ALL_DIFFERENT:
      return "claims no two of your dice show the same face; wilds do not help";
    default:
      return undefined;
  }
}

/** The moves of the common-hand games (and the points game), from the prompt's `legal`. */
function Actions({ legal, state, session, odds }: { legal: Legal; state: TableState; session: Session; odds: boolean }) {
  const [face, setFace] = useState<number | undefined>(undefined);
  // What is typed stays typed: a quantity out of range is said, not silently changed.
  const [typed, setTyped] = useState<string | undefined>(undefined);
  const [shown, setShown] = useState<boolean[]>([]);
  // The face of the bid in force first: raising it is the commonest move.
  const standing = state.view?.currentBid?.bid?.face;
  const range = legal.bids.find((b) => b.face === (face ?? standing)) ?? legal.bids[0];
  const panel = useFocusOnArrival<HTMLElement>(state.prompt?.callWindowUnixMillis !== undefined && !legal.bids.length);
  const text = typed ?? String(range?.minQuantity ?? "");
  const q = /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
  const inRange = range && q !== undefined && q >= range.minQuantity && q <= range.maxQuantity;
  const send = (action: ActionInit) => void session.act(create(ActionSchema, { action }));
  const myDice = state.view?.myDice ?? [];
  const window = state.prompt?.callWindowUnixMillis !== undefined;
  const rules = state.table?.rules;
  // The points game (seed 001) says Guess, Watch and Doubt.
  const points = rules?.gameEnd?.end.case === "points";
  const faces = rules?.dice?.faces;
  const pushing = legal.push ? myDice.filter((_, i) => shown[i]) : [];
  const claims = state.view?.claims ?? [];
  const passed = (seat: number) => claims.filter((c) => c.seat === seat).at(-1)?.kind.case === "pass";
  const pass = passClaim(rules);
  const palifico = (state.view?.palifico.length ?? 0) > 0;
  // In a call window no key the player pressed for something else makes a call: these keys
  // call, and only while the focus is not in a field.
  useEffect(() => {
    if (!window) return;
    const onKey = (e: KeyboardEvent) => {
      const at = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey || at?.closest("input, textarea, select")) return;
      const key = e.key.toLowerCase();
      if (key === "c" && legal.calza) send({ case: "calza", value: {} });
      else if (key === "d" && legal.dudo.length === 1) send({ case: "dudo", value: { target: legal.dudo[0] } });
      else if (key === "n") void session.act(undefined, true);
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [window]);
  return (
    <section class="actions panel" aria-label="Your move" ref={panel} tabIndex={-1}>
      <h2>{window ? "Call on this claim?" : "Your move"}</h2>
      {window && (
        <p class="summary keys">
          Keys: {legal.calza && <><kbd>C</kbd> calza · </>}
          {legal.dudo.length === 1 && <><kbd>D</kbd> dudo · </>}
          <kbd>N</kbd> no call. Enter and Space never call here unless a call button has the focus.
        </p>
      )}
      {points && !window && (
        <p class="summary">
          A guess that holds (at least that many on the table) scores quantity × face; a wrong one loses as much. A doubt that
          is right gains the higher of quantity and face; a wrong one loses it. Watch stops you guessing this round: your last
          guess still scores the higher of the two if it holds.
        </p>
      )}
      {palifico && legal.bids.length === 1 && state.view?.currentBid && (
        <p class="summary">Palifico round: the face is fixed at {legal.bids[0].face}s, so only the quantity can go up.</p>
      )}
      {range && (
        <form
          class="bid-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!inRange || q === undefined) return;
            const bid = { quantity: q, face: range.face };
            if (pushing.length > 0) send({ case: "push", value: { dice: pushing, bid } });
            else send({ case: "bid", value: bid });
            setShown([]);
          }}
        >
          <fieldset>
            <legend>Face</legend>
            {legal.bids.map((b) => (
              <button
                type="button"
                aria-pressed={b.face === range.face}
                class={b.face === range.face ? "chosen" : ""}
                onClick={() => setFace(b.face)}
              >
                <Die face={b.face} size={28} />
                {odds && state.view && faces && (
                  <span class="odds">
                    {" "}
                    {b.minQuantity}+: {percent(bidOdds(state.view, faces, b.minQuantity, b.face))}
                  </span>
                )}
              </button>
            ))}
          </fieldset>
          <label>
            How many{" "}
            <input
              type="text"
              inputMode="numeric"
              pattern="[0-9]*"
              class="quantity"
              aria-invalid={!inRange}
              aria-describedby="quantity-range"
              value={text}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={!inRange}>
            {pushing.length > 0 ? `Show ${pushing.length} and ${points ? "guess" : "bid"}` : points ? "Guess" : "Bid"}{" "}
            {inRange ? `${q} × ${range.face}` : ""}
          </button>
          {odds && state.view && inRange && q !== undefined && faces && (
            <span class="odds">{percent(bidOdds(state.view, faces, q, range.face))} likely true</span>
          )}
          <p id="quantity-range" class={inRange ? "summary" : "alert"}>
            {range.minQuantity === range.maxQuantity
              ? `A ${points ? "guess" : "bid"} on ${range.face}s is of ${range.minQuantity} now.`
              : `A ${points ? "guess" : "bid"} on ${range.face}s is of ${range.minQuantity} to ${range.maxQuantity} now.`}
          </p>
          {legal.push && myDice.length > 0 && (
            <fieldset>
              <legend>Show these and re-roll the rest (optional)</legend>
              {myDice.map((d, i) => (
                <label class="pick">
                  <input
                    type="checkbox"
                    checked={!!shown[i]}
                    onChange={(e) => {
                      const next = [...shown];
                      next[i] = e.currentTarget.checked;
                      setShown(next);
                    }}
                  />
                  <Die face={d} size={24} />
                </label>
              ))}
            </fieldset>
          )}
        </form>
      )}
      <div class="calls">
        {legal.dudo.map((t) => (
          <button type="button" class="call" onClick={() => send({ case: "dudo", value: { target: t } })}>
            {points
              ? `Doubt ${session.name(t)}'s guess!`
              : legal.dudo.length > 1 || passed(t)
                ? `Dudo on ${session.name(t)}'s ${passed(t) ? "pass" : "bid"}!`
                : "Dudo!"}
          </button>
        ))}
        {legal.calza && (
          <button type="button" class="call" onClick={() => send({ case: "calza", value: {} })}>
            Calza!
          </button>
        )}
        {legal.pass && (
          <button type="button" onClick={() => send({ case: "pass", value: {} })}>
            Pass{pass && <span class="hint"> ({pass})</span>}
          </button>
        )}
        {legal.watch && (
          <button type="button" onClick={() => send({ case: "watch", value: {} })}>
            Watch<span class="hint"> (sit out the rest of the round; your last guess still counts)</span>
          </button>
        )}
        {window && (
          <button type="button" onClick={() => void session.act(undefined, true)}>
            No call
          </button>
        )}
      </div>
    </section>
  );
}

/** The last reveal in full, cup by cup with what counted, and what it settled (the felt shows
 * it as it happens; this stays until the next one). */
function Reveal({ state, name }: { state: TableState } & Names) {
  const r = state.reveal!;
  // Below the felt it waits as the felt's middle does while the felt lifts the cups: a reveal
  // just made (a cue), not one read again after a reload, nor one whose table went on at once
  // (then this panel is the only place it is shown).
  const settle = settleMillis(r.dice.filter((d) => d.dice.length > 0).length, state.table?.players.length ?? 0);
  const fresh = revealShown(state) && state.cues.some((c) => c.kind === "reveal" && performance.now() - c.at < settle + 2000);
  return (
    <section class={`reveal panel${fresh ? " settles" : ""}`} aria-label="The reveal" style={{ "--settle": `${settle}ms` }}>
      <h2>
        The last reveal{r.face !== undefined && r.total !== undefined && <> · {r.total} counted for <Die face={r.face} size={22} /></>}
      </h2>
      <ul>
        {r.dice.map((d, seat) =>
          d.dice.length === 0 ? null : (
            <li>
              <span class="name">{name(seat)}</span> <Dice faces={d.dice} marks={r.counted[seat]?.dice} size={28} />
              {r.counted[seat] && <span class="count"> {r.counted[seat].count}</span>}
            </li>
          ),
        )}
      </ul>
      {state.outcome && state.outcome.length > 0 && (
        <ul class="outcome" aria-label="What the reveal settled">
          {state.outcome.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The host paused the game: who, since when, and who may resume it. */
function PauseBanner({ table, held, state }: { table: TableInfo; held?: Held; state: TableState }) {
  const now = useNow(1000);
  const [error, setError] = useState<string>();
  const p = table.pause!;
  const at = (ms: bigint) => new Date(Number(ms)).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const host = held && (held.seated ? state.seat === table.host : true);
  const anyone = now >= Number(p.anyoneResumesUnixMillis);
  return (
    <section class="paused panel" aria-live="polite" aria-label="Paused">
      <h2>Paused</h2>
      <p>
        {held?.seated && table.players.find((s) => s.seat === state.seat)?.name === p.by ? "You" : p.by} paused the game at{" "}
        {at(p.sinceUnixMillis)}. No clock runs and nobody is taken out for being away.
        {anyone ? " Anyone may resume it now." : ` The host resumes it; from ${at(p.anyoneResumesUnixMillis)} anyone may.`} Unless it is
        resumed by {at(p.endsUnixMillis)}, the game ends.
      </p>
      {held && (host || anyone) && (
        <button
          type="button"
          onClick={() => lobby.resumeGame({ table: table.id }, as(held.token)).catch((e) => setError(say(e)))}
        >
          Resume the game
        </button>
      )}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}

/** This seat's own link, to take it on another device (shown to this seat only). */
function SeatLink({ table, held }: { table: TableInfo; held: Held }) {
  const [link, setLink] = useState<string>();
  const [error, setError] = useState<string>();
  const [copied, setCopied] = useState(false);
  if (!link) {
    return (
      <p>
        <button
          type="button"
          onClick={() =>
            lobby
              .seatLink({ table: table.id }, as(held.token))
              .then((r) => setLink(r.link))
              .catch((e) => setError(say(e)))
          }
        >
          Play this seat on another device
        </button>
        {error && <span role="alert"> {error}</span>}
      </p>
    );
  }
  return (
    <section class="panel seat-link" aria-label="Your seat on another device">
      <p>
        Open this link on your other device to take your seat there. It is yours alone: whoever has it can play your seat (the host can
        revoke it; asking for a new one replaces it).
      </p>
      <p>
        <input readOnly value={link} aria-label="Your seat's link" onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(link);
              setCopied(true);
            } catch {
              prompt("Copy your seat's link:", link);
            }
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </p>
    </section>
  );
}

function mark(reaction: Reaction): string {
  return REACTIONS.find(([r]) => r === reaction)?.[1].split(" ")[0] ?? "";
}

/** What people say at the table, beside the story: a line, or a reaction with one tap. */
function TalkPanel({ state, session, held }: { state: TableState; session: Session; held?: Held }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const [name, setName] = useState(lastName());
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [state.talk.length]);
  const seated = !!held?.seated;
  const mayTalk = seated || !!state.table?.spectatorsChat;
  const send = async (said: string, reaction = Reaction.NONE) => {
    setError(undefined);
    const refused = await session.say(said, reaction, seated ? "" : name);
    if (refused) setError(refused);
    else if (reaction === Reaction.NONE) setText("");
  };
  return (
    <section class="talk panel" aria-label="Talk">
      <h2>Talk</h2>
      <ol ref={list} aria-live="polite">
        {state.talk.map((t: Talk) => (
          <li class={t.reaction ? "reaction" : ""}>
            <strong>{t.name}</strong>
            {t.reaction ? ` ${t.text} ${mark(t.reaction)}` : `: ${t.text}`}
          </li>
        ))}
        {state.talk.length === 0 && <li class="summary">Nothing said yet.</li>}
      </ol>
      {mayTalk ? (
        <>
          <p class="reactions">
            {REACTIONS.map(([r, shown, label]) => (
              <button type="button" aria-label={label} title={label} onClick={() => void send("", r)}>
                {shown}
              </button>
            ))}
          </p>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (text.trim()) void send(text);
            }}
          >
            {!seated && (
              <input value={name} maxLength={32} placeholder="Your name" aria-label="Your name" onInput={(e) => setName(e.currentTarget.value)} />
            )}
            <input value={text} maxLength={200} placeholder="Say something…" aria-label="Say something" onInput={(e) => setText(e.currentTarget.value)} />
            <button type="submit">Say</button>
          </form>
        </>
      ) : (
        <p class="summary">Only the seated players talk at this table.</p>
      )}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}

function ResultsTable({ state, name }: { state: TableState } & Names) {
  const rows = state.results!.rows;
  return (
    <section class="panel" aria-label="Results table">
      <h2>The last round's bids</h2>
      <table class="results">
        <thead>
          <tr>
            <th>Player</th>
            <th>Bid</th>
            <th>Were there</th>
            <th>True?</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              <td>{name(r.seat)}</td>
              <td>{r.bid && <BidText quantity={r.bid.quantity} face={r.bid.face} />}</td>
              <td>{r.actual}</td>
              <td>{r.wasTrue ? "yes" : "no"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function HostPanel({ table, held, over }: { table: TableInfo; held: Held; over: boolean }) {
  const [bot, setBot] = useState("odds");
  const [rules, setRules] = useState("");
  const [error, setError] = useState<string>();
  const run = async (call: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await call();
    } catch (e) {
      setError(say(e));
    }
  };
  const ref = { table: table.id };
  const auth = as(held.token);
  const waiting = table.state === WireState.WAITING;
  return (
    <section class="host panel" aria-label="Host">
      <h2>Host</h2>
      {waiting && table.players.length < table.seats && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(() => lobby.addBot({ table: table.id, bot }, auth));
          }}
        >
          <select value={bot} onChange={(e) => setBot(e.currentTarget.value)} aria-label="Bot">
            <option value="random">random bot</option>
            <option value="odds">odds bot</option>
            <option value="reader">reader bot</option>
            <option value="expert">expert bot</option>
          </select>
          <button type="submit">Add a bot</button>
        </form>
      )}
      {waiting && (
        <button type="button" onClick={() => void run(() => lobby.startGame(ref, auth))}>
          Start the game
        </button>
      )}
      {waiting && table.rules && table.rules.family === 0 && <TableOptions table={table} run={run} auth={auth} />}
      {waiting && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await lobby.changeSettings({ table: table.id, settings: ruleLines(rules) }, auth);
              setRules("");
            });
          }}
        >
          <OtherRules value={rules} set={setRules} />
          {rules.trim() && <button type="submit">Change the rules</button>}
        </form>
      )}
      {!waiting && !over && !table.pause && (
        <button type="button" onClick={() => void run(() => lobby.pauseGame(ref, auth))}>
          Pause the game
        </button>
      )}
      {!waiting && !over && table.pause && (
        <button type="button" onClick={() => void run(() => lobby.resumeGame(ref, auth))}>
          Resume the game
        </button>
      )}
      {!waiting && (
        <button
          type="button"
          onClick={() => {
            const what = over
              ? "Back to waiting, with the same seats and rules?"
              : "Reset the table? The game in play ends for everyone and the table waits for a new start.";
            if (confirm(what)) void run(() => lobby.resetTable(ref, auth));
          }}
        >
          Reset (back to waiting)
        </button>
      )}
      {table.players
        .filter((p) => !p.bot && !p.left && p.seat !== table.host)
        .map((p) => (
          <button type="button" onClick={() => void run(() => lobby.muteSeat({ table: table.id, seat: p.seat, muted: !p.muted }, auth))}>
            {p.muted ? `Let ${p.name} talk` : `Mute ${p.name}`}
          </button>
        ))}
      {table.players
        .filter((p) => p.linkedDevices > 0 && !p.left)
        .map((p) => (
          <button
            type="button"
            onClick={() => {
              const whose = p.seat === table.host ? "your own" : `${p.name}'s`;
              if (!confirm(`Revoke ${whose} seat link? The devices that took the seat with it can no longer play it.`)) return;
              void run(() => lobby.revokeSeatLink({ table: table.id, seat: p.seat }, auth));
            }}
          >
            Revoke {p.seat === table.host ? "your own" : `${p.name}'s`} seat link ({p.linkedDevices}{" "}
            {p.linkedDevices === 1 ? "device" : "devices"})
          </button>
        ))}
      {table.players
        .filter((p) => p.seat !== table.host && !p.left && !p.leaving)
        .map((p) => (
          <button
            type="button"
            onClick={() => {
              const when = waiting
                ? "Their seat is freed."
                : "If the round has begun, their moves are played by default until it ends, then their dice leave the game.";
              if (!confirm(`Remove ${p.name}? ${when}`)) return;
              setError(undefined);
              lobby.removePlayer({ table: table.id, seat: p.seat }, auth).catch((e) => setError(`Could not remove ${p.name}: ${removeRefusal(e, p.name)}`));
            }}
          >
            Remove {p.name}
          </button>
        ))}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}

/** The host's options at the table before the start, as the front page's form has them:
 * only what changed is sent, and dice each sets the most dice too. */
function TableOptions({ table, run, auth }: { table: TableInfo; run: (call: () => Promise<unknown>) => Promise<void>; auth: ReturnType<typeof as> }) {
  const rules = table.rules!;
  const current = optionsOf(rules);
  const [options, setOptions] = useState<Options>(current);
  // The table's rules changed (by this form or another host's tab): start from them again.
  useEffect(() => setOptions(optionsOf(rules)), [JSON.stringify(current)]);
  const before = new Map(settingsOf(current, shownFor(rules)).map((s) => [s.path, s.value]));
  const changed = settingsOf(options, shownFor(rules)).filter((s) => before.get(s.path) !== s.value);
  return (
    <form
      class="table-options"
      onSubmit={(e) => {
        e.preventDefault();
        void run(() => lobby.changeSettings({ table: table.id, settings: changed }, auth));
      }}
    >
      <HostOptions options={options} set={setOptions} rules={rules} />
      <button type="submit" disabled={changed.length === 0}>
        {changed.length === 0 ? "The options are as shown" : "Change the options"}
      </button>
    </form>
  );
}

/** Why the server refused to remove a player, in words that name them. */
function removeRefusal(e: unknown, name: string): string {
  switch (codeOf(e)) {
    case "already_leaving":
      return `${name} is already leaving, at the end of this round.`;
    case "out_of_the_game":
      return `${name} is already out of the game.`;
    case "host_cannot_leave":
      return "the host keeps their seat before the start.";
    default:
      return say(e);
  }
}

function LeaveButton({
  table,
  held,
  midRound,
  leaving,
  onLeft,
}: {
  table: TableInfo;
  held: Held;
  midRound: boolean;
  leaving: boolean;
  onLeft: () => void;
}) {
  const [error, setError] = useState<string>();
  if (leaving) return <p class="summary">You leave at the end of this round: until then your moves are played for you.</p>;
  return (
    <p>
      <button
        type="button"
        onClick={async () => {
          const when = midRound
            ? "The round has begun: your moves are played by default until it ends, then your seat goes for good."
            : "Your seat goes for good.";
          if (!confirm(`Leave the table? ${when} You can still watch.`)) return;
          setError(undefined);
          try {
            const info = await lobby.leave({ table: table.id }, as(held.token));
            // Leaving at the round's end: the seat is still ours until then.
            if (info.players.find((p) => p.seat === held.seat)?.leaving) return;
            forget(held.table);
            onLeft();
          } catch (e) {
            setError(say(e));
          }
        }}
      >
        Leave the table
      </button>
      {error && <span role="alert"> {error}</span>}
    </p>
  );
}

function Story({ lines }: { lines: string[] }) {
  const list = useRef<HTMLOListElement>(null);
  // The newest line in view (a latecomer's story so far, then as lines come), unless the
  // reader scrolled back up: known from their scrolling, not from how far the end is, since a
  // reveal adds many long lines at once.
  const following = useRef(true);
  useEffect(() => {
    const el = list.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [lines.length]);
  return (
    <section class="story panel" aria-label="What happened" aria-live="polite">
      <h2>At the table</h2>
      <ol
        ref={list}
        onScroll={(e) => {
          const el = e.currentTarget;
          following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
        }}
      >
        {lines.map((l) => (
          <li>{l}</li>
        ))}
      </ol>
    </section>
  );
}
