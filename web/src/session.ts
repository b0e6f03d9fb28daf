// A table's stream, kept open: a seat's (`Subscribe`, with its token) or a spectator's
// (`Watch`). A dropped connection (a phone that slept, a Wi-Fi change) resumes after the
// last event seen, so nothing is lost or repeated; the server's own reasons to end a stream
// (a reset, renumbered seats) reopen it afresh; a seat that is gone ends it. The story and
// the last event seen are kept in the browser's storage (the last few tables'), so a reload,
// or the link opened again in a new tab, resumes too.
import { as, Code, ConnectError, forget, keep as keepSeat, play, type Held } from "./api";
import { fromJsonString, toJsonString } from "@bufbuild/protobuf";
import {
  ChallengeSettledSchema,
  DiceRevealedSchema,
  ResultsSchema,
  type Action,
  type ChallengeSettled,
  type DiceRevealed,
  type Event,
  type Legal,
  type Results,
  type View,
} from "./gen/dudo/v1/game_pb";
import {
  Reaction,
  Reseated_Why,
  TableState as WireState,
  type PlayUpdate,
  type Prompt,
  type TableInfo,
  type TableLine,
} from "./gen/dudo/v1/service_pb";
import { told } from "./story";
import { cuesOf, type Cue } from "./cues";

/** A line said at the table (chat or a reaction), as the talk panel shows it. */
export type Talk = {
  name: string;
  text: string;
  reaction: Reaction;
  at: number;
  spectator: boolean;
  seat?: number;
  /** When this page heard it said (Unix ms; 0 for the story read again): the felt's bubble. */
  heard: number;
};

export type TableState = {
  table?: TableInfo;
  view?: View;
  prompt?: Prompt;
  /** Our seat's number now (it may change before the start). */
  seat?: number;
  /** When the turn clock or the call window runs out, Unix ms. */
  deadline?: number;
  window?: number;
  /** The last reveal: every cup, what counted and the total, as the server sent them. */
  reveal?: DiceRevealed;
  /** What the reveal settled, in words: who was right, who lost or won what. */
  outcome?: string[];
  results?: Results;
  /** The last lifted cup of an individual-hand game: the claim against the hand. */
  challenge?: ChallengeSettled;
  /** When this page saw the game end (Unix ms): its record is no older than that. */
  overAt?: number;
  /** The story so far, newest last (bounded): the game's events and the table's own news. */
  lines: string[];
  /** What people said (chat and reactions), newest last (bounded). */
  talk: Talk[];
  /** After a showdown, while the next round waits: when it goes on by itself (Unix ms), and
   * the seats that have said "next". */
  nextRound?: number;
  ready: number[];
  /** An action of ours the server refused, in its words. */
  refused?: string;
  link: "connecting" | "live" | "lost";
  /** The stream ended for good, and why. */
  ended?: string;
  /** The seat this page held is gone (left, removed, taken out): the page watches instead. */
  seatGone?: boolean;
  /** What just happened at the live table, newest last (bounded): the felt's motion and the sounds. */
  cues: Cue[];
  /** Who made the call the last reveal answers: the cups lift from their seat on. */
  caller?: number;
  /** The round the last reveal ended: the felt shows its dice until the next round begins. */
  revealRound?: number;
  /** When this page saw the running clock's deadline set (Unix ms): the ring's full length. */
  deadlineFrom?: number;
};

const MOST_LINES = 200;
const MOST_TALK = 100;
const MOST_CUES = 16;

/** The events that say what a reveal settled. */
const OUTCOME = new Set(["roundSettled", "diceLost", "diceWon", "diceGiven", "eliminated", "scored", "paid", "drank", "lifeLost", "gameOver"]);

/** What a reload needs to resume where the page was: kept per tab, table and seat. */
type Kept = { since: string; lines: string[]; reveal?: string; outcome?: string[]; results?: string; challenge?: string };

function keptKey(tableId: string, held: Held | undefined): string {
  return `dudo.story.${tableId}.${held?.seated ? `${held.seat}.${held.token.slice(-8)}` : "watching"}`;
}

/** Stories kept at most: the oldest goes first. */
const MOST_STORIES = 10;

function load(key: string): Kept | undefined {
  try {
    const kept = JSON.parse(localStorage.getItem(key) ?? "null") as Kept | null;
    return kept && typeof kept.since === "string" && Array.isArray(kept.lines) ? kept : undefined;
  } catch {
    return undefined;
  }
}

export class Session {
  state: TableState = { lines: [], talk: [], ready: [], link: "connecting", cues: [] };
  private cueId = 0;
  private since?: bigint;
  private stop = new AbortController();
  private listeners = new Set<() => void>();

  private readonly key: string;

  constructor(
    readonly tableId: string,
    readonly held: Held | undefined,
  ) {
    this.key = keptKey(tableId, held);
    // A resumed stream has no snapshot to say our seat: it is the one we hold.
    if (held?.seated) this.state = { ...this.state, seat: held.seat };
    const kept = load(this.key);
    if (kept) {
      try {
        this.since = BigInt(kept.since);
        this.state = {
          ...this.state,
          lines: kept.lines.slice(-MOST_LINES).map(String),
          reveal: kept.reveal ? fromJsonString(DiceRevealedSchema, kept.reveal) : undefined,
          outcome: Array.isArray(kept.outcome) ? kept.outcome.map(String) : undefined,
          results: kept.results ? fromJsonString(ResultsSchema, kept.results) : undefined,
          challenge: kept.challenge ? fromJsonString(ChallengeSettledSchema, kept.challenge) : undefined,
        };
      } catch {
        this.since = undefined;
      }
    }
    void this.run();
  }

  private keeping?: ReturnType<typeof setTimeout>;
  /** Why the server last said this stream's seat moved or went. */
  private reseated?: Reseated_Why;

  /** Keeps what a reload resumes from, at most twice a second (a table of bots sends events
   * by the hundred): the story and the last event seen are kept together, so a reload
   * resumes after that event whatever came since. Full or refused storage only means a
   * reload starts from a fresh snapshot. */
  private keep() {
    if (this.keeping === undefined) {
      this.keeping = setTimeout(() => {
        this.keeping = undefined;
        this.keepNow();
      }, 500);
    }
  }

  private keepNow() {
    if (this.since === undefined) return;
    const s = this.state;
    const kept: Kept = {
      since: String(this.since),
      lines: s.lines,
      reveal: s.reveal && toJsonString(DiceRevealedSchema, s.reveal),
      outcome: s.outcome,
      results: s.results && toJsonString(ResultsSchema, s.results),
      challenge: s.challenge && toJsonString(ChallengeSettledSchema, s.challenge),
    };
    try {
      localStorage.setItem(this.key, JSON.stringify(kept));
      const index = JSON.parse(localStorage.getItem("dudo.stories") ?? "[]") as string[];
      const keys = [...index.filter((k) => k !== this.key), this.key];
      for (const old of keys.splice(0, Math.max(0, keys.length - MOST_STORIES))) localStorage.removeItem(old);
      localStorage.setItem("dudo.stories", JSON.stringify(keys));
    } catch {
      // Storage full or off: nothing kept.
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close() {
    this.stop.abort();
    clearTimeout(this.keeping);
    this.keepNow();
  }

  private set(change: Partial<TableState>) {
    this.state = { ...this.state, ...change };
    for (const l of this.listeners) l();
  }

  private line(text: string) {
    this.set({ lines: [...this.state.lines, text].slice(-MOST_LINES) });
  }

  name = (seat: number): string => {
    const p = this.state.table?.players.find((p) => p.seat === seat);
    return p ? p.name : `seat ${seat}`;
  };

  private async run() {
    let backoff = 250;
    while (!this.stop.signal.aborted) {
      try {
        const request = { table: this.tableId, since: this.since };
        // A host-only creator's token is for the host's calls: it watches like a spectator.
        const seat = this.held?.seated ? this.held : undefined;
        const options = { ...(seat ? as(seat.token) : {}), signal: this.stop.signal };
        const stream = seat ? play.subscribe(request, options) : play.watch(request, options);
        for await (const update of stream) {
          if (this.state.link !== "live") this.set({ link: "live" });
          backoff = 250;
          this.take(update);
        }
      } catch (e) {
        if (this.stop.signal.aborted) return;
        const code = e instanceof ConnectError ? e.code : undefined;
        if (code === Code.Unauthenticated && this.held?.seated) {
          forget(this.held.table);
          localStorage.removeItem(this.key);
          this.since = undefined; // nothing to keep for a seat that is gone
          this.set({ ended: goneWhy(this.reseated), seatGone: true, link: "lost" });
          return;
        }
        if (code === Code.NotFound) {
          this.set({ ended: "The table has closed.", link: "lost" });
          return;
        }
        if (code === Code.Aborted || code === Code.ResourceExhausted) {
          // Ended on purpose (a reset, renumbered seats) or too far behind: a fresh snapshot.
          this.since = undefined;
        } else {
          this.set({ link: "lost" });
        }
      }
      if (this.stop.signal.aborted) return;
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 5000);
    }
  }

  private take(update: PlayUpdate) {
    const u = update.update;
    switch (u.case) {
      case "snapshot":
        this.since = u.value.lastSeq;
        // Seats renumbered before the start: remember the seat we hold now.
        if (this.held?.seated && u.value.seat !== undefined && u.value.seat !== this.held.seat) {
          keepSeat({ ...this.held, seat: u.value.seat });
        }
        if (u.value.table) this.tableNow(u.value.table);
        this.set({
          view: u.value.view,
          seat: u.value.seat ?? this.state.seat,
          prompt: undefined,
        });
        break;
      case "table":
        this.tableNow(u.value);
        break;
      case "event":
        this.since = u.value.seq;
        this.event(u.value, true);
        this.keep();
        break;
      case "prompt":
        // A new question for our seat (not the same one sent again after a reconnect): your turn.
        if (u.value.lastSeq !== this.state.prompt?.lastSeq && u.value.legal) this.cue([{ kind: "turn", seat: this.state.seat }]);
        this.clockFrom(u.value.deadlineUnixMillis);
        this.set({
          nextRound: undefined,
          ready: [],
          prompt: u.value,
          view: u.value.view ?? this.state.view,
          deadline: u.value.deadlineUnixMillis !== undefined ? Number(u.value.deadlineUnixMillis) : undefined,
          window: u.value.callWindowUnixMillis !== undefined ? Number(u.value.callWindowUnixMillis) : undefined,
        });
        break;
      case "turn":
        this.clockFrom(u.value.deadlineUnixMillis);
        this.set({
          view: u.value.view ?? this.state.view,
          prompt: undefined,
          nextRound: u.value.nextRoundUnixMillis !== undefined ? Number(u.value.nextRoundUnixMillis) : undefined,
          ready: u.value.ready,
          deadline: u.value.deadlineUnixMillis !== undefined ? Number(u.value.deadlineUnixMillis) : undefined,
          window: u.value.callWindowUnixMillis !== undefined ? Number(u.value.callWindowUnixMillis) : undefined,
        });
        break;
      case "rejected":
        this.set({ refused: u.value.reason });
        break;
      case "reseated":
        this.since = undefined;
        this.reseated = u.value.why;
        break;
      case "line":
        this.said(u.value, true);
        break;
      case "story": {
        // The story so far replaces what this page had kept: the server's is whole.
        // Each line goes after the event it was said after: the evening in the order it happened.
        this.set({ lines: [], talk: [] });
        const lines = [...u.value.lines];
        for (const e of u.value.events) {
          while (lines.length > 0 && lines[0].afterSeq < e.seq) this.said(lines.shift()!);
          this.event(e);
        }
        for (const l of lines) this.said(l);
        break;
      }
      case "clockWarning": {
        const secs = Math.max(1, Math.round(Number(u.value.leftMillis) / 1000));
        this.line(`${secs} s left to move: then the clock plays your seat's default move.`);
        break;
      }
    }
  }

  /** Who sits there now and by which rules; a reset and a rule change are told in the story. */
  private tableNow(table: TableInfo) {
    const before = this.state.table;
    if (before && before.state !== WireState.WAITING && table.state === WireState.WAITING) {
      this.set({ reveal: undefined, outcome: undefined, results: undefined, challenge: undefined });
      this.line("The table was reset: it waits for the host to start a new game.");
    }
    this.set({ table });
  }

  /** Notes when the running clock's deadline was set, for the ring's full length. */
  private clockFrom(deadline: bigint | undefined) {
    const at = deadline !== undefined ? Number(deadline) : undefined;
    if (at !== this.state.deadline) this.set({ deadlineFrom: Date.now() });
  }

  private cue(made: Omit<Cue, "id" | "at">[]) {
    if (made.length === 0) return;
    const at = performance.now();
    const cues = [...this.state.cues, ...made.map((c) => ({ ...c, id: ++this.cueId, at }))].slice(-MOST_CUES);
    this.set({ cues });
  }

  /** An event of the game; `live`: it happened just now (a story read again makes no cues). */
  private event(e: Event, live = false) {
    const k = e.kind;
    if (live) this.cue(cuesOf(e));
    if (k.case === "dudoCalled" || k.case === "calzaCalled") this.set({ caller: k.value.seat });
    if (k.case === "diceRevealed") this.set({ revealRound: this.state.view?.round });
    // The last reveal and results table stay in view until the next ones: a table of bots
    // opens the next round at once.
    if (k.case === "gameStarted") this.set({ reveal: undefined, outcome: undefined, results: undefined, challenge: undefined });
    if (k.case === "challengeSettled") this.set({ challenge: k.value });
    if (k.case === "gameOver") this.set({ overAt: Date.now() });
    if (k.case === "diceRevealed") this.set({ reveal: k.value, outcome: [], results: undefined });
    // A hand game's lifted cup: what it cost is told beside the claim and the hand.
    if (k.case === "handRevealed") this.set({ outcome: [] });
    if (k.case === "resultsTable") this.set({ results: k.value });
    const text = told(e);
    if (text) this.line(text);
    // The reveal panel says what it settled, until the next round begins.
    if (text && this.state.outcome && OUTCOME.has(k.case ?? "")) this.set({ outcome: [...this.state.outcome, text].slice(-8) });
  }

  /** A line of the table's talk: the table's own news goes in the story, people's words in the talk. */
  private said(l: TableLine, live = false) {
    if (l.from.case === "table" || l.from.case === undefined) {
      this.line(l.text);
      return;
    }
    const talk: Talk = {
      name: l.name,
      text: l.text,
      reaction: l.reaction,
      at: Number(l.atUnixMillis),
      spectator: l.from.case === "spectator",
      seat: l.from.case === "seat" ? l.from.value : undefined,
      heard: live ? Date.now() : 0,
    };
    this.set({ talk: [...this.state.talk, talk].slice(-MOST_TALK) });
  }

  /** "Next": our seat has seen the reveal. */
  async next() {
    if (!this.held?.seated) return;
    try {
      await play.act({ table: this.tableId, nextRound: true }, as(this.held.token));
    } catch (e) {
      this.set({ refused: e instanceof ConnectError ? e.rawMessage : String(e) });
    }
  }

  /** Says a line (or a reaction) at the table: as our seat, or as a spectator named `name`. */
  async say(text: string, reaction: Reaction = Reaction.NONE, name = ""): Promise<string | undefined> {
    const seat = this.held?.seated ? this.held : undefined;
    try {
      await play.say({ table: this.tableId, text, reaction, name }, seat ? as(seat.token) : {});
      return undefined;
    } catch (e) {
      return e instanceof ConnectError ? e.rawMessage : String(e);
    }
  }

  /** Plays an action (or lets a claim pass) for our seat, answering the prompt in force. */
  async act(action: Action | undefined, passCall = false) {
    if (!this.held?.seated) return;
    this.set({ refused: undefined });
    const answered = this.state.prompt;
    try {
      await play.act({ table: this.tableId, action, passCall, answers: answered?.lastSeq }, as(this.held.token));
      // Answered; unless the next prompt came down the stream first (a move that ended a
      // round can be followed by our next turn before this reply arrives).
      if (this.state.prompt === answered) this.set({ prompt: undefined });
    } catch (e) {
      this.set({ refused: e instanceof ConnectError ? e.rawMessage : String(e) });
    }
  }
}

export type { Legal };

/** Why a seat's stream ended for good, in words. */
function goneWhy(why: Reseated_Why | undefined): string {
  switch (why) {
    case Reseated_Why.REMOVED:
      return "The host removed you from the game. You can still watch from the table's link.";
    case Reseated_Why.LEFT:
      return "You left the table.";
    case Reseated_Why.AWAY:
      return "You were taken out of the game: away for a whole round, or out of time twice in a row.";
    case Reseated_Why.RELINKED:
      return "The host revoked the link this device took the seat with. You can still watch.";
    default:
      return "Your seat is gone: the host removed you, or you left.";
  }
}
