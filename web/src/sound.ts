// The table's sounds, made in the page with Web Audio (nothing fetched): a chime for your
// turn, a knock for a bid, a thump for dudo, a bright run for calza, a rattle for the reveal
// and a deal, a falling note for a lost die, a rising one for a won die, a fanfare at the end.
// Off until the player turns them on (the Fibbing Dice table has the same switch); the choice
// is remembered in this browser. A browser only lets a page make sound after a click, so the
// audio starts with the click that turns it on.
import type { CueKind } from "./cues";

const KEY = "dudo.sound";

let context: AudioContext | undefined;
/** When the last cue scheduled ends (the audio clock's seconds): cues in a burst (a reveal,
 * its lost die) play one after another, not over each other. */
let freeAt = 0;
/** Bids and deals further behind than this are dropped: a table of bots moves faster than ears. */
const MOST_BEHIND = 1.2;

export function soundOn(): boolean {
  return localStorage.getItem(KEY) === "on";
}

/** Turns sound on or off; called from the click that chose it, so the audio may start. */
export function setSound(on: boolean) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) {
    audio();
    cue("turn");
  }
}

function audio(): AudioContext | undefined {
  if (!context) {
    const Made = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Made) return undefined;
    context = new Made();
  }
  if (context.state === "suspended") void context.resume();
  return context;
}

/** Where the cue being scheduled starts, on the audio clock. */
let base = 0;

/** A note: `freq` Hz (sliding to `to`), from `start` s for `length` s, at `gain`. */
function tone(ac: AudioContext, freq: number, start: number, length: number, gain: number, type: OscillatorType = "sine", to?: number) {
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = type;
  const t = base + start;
  osc.frequency.setValueAtTime(freq, t);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, t + length);
  amp.gain.setValueAtTime(0.0001, t);
  amp.gain.exponentialRampToValueAtTime(gain, t + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, t + length);
  osc.connect(amp).connect(ac.destination);
  osc.start(t);
  osc.stop(t + length + 0.02);
}

/** A short burst of noise: a die on the felt. */
function knock(ac: AudioContext, start: number, gain: number, length = 0.05) {
  const frames = Math.ceil(ac.sampleRate * length);
  const buffer = ac.createBuffer(1, frames, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 3;
  const src = ac.createBufferSource();
  src.buffer = buffer;
  const filter = ac.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  const amp = ac.createGain();
  amp.gain.value = gain;
  src.connect(filter).connect(amp).connect(ac.destination);
  src.start(base + start);
}

const CUES: Record<CueKind, (ac: AudioContext) => void> = {
  turn: (ac) => {
    tone(ac, 660, 0, 0.18, 0.2);
    tone(ac, 880, 0.12, 0.3, 0.2);
  },
  bid: (ac) => knock(ac, 0, 0.5),
  dudo: (ac) => {
    tone(ac, 180, 0, 0.35, 0.35, "triangle", 90);
    knock(ac, 0, 0.6, 0.08);
  },
  calza: (ac) => [523, 659, 784, 1047].forEach((f, i) => tone(ac, f, i * 0.07, 0.2, 0.15, "triangle")),
  reveal: (ac) => {
    for (let i = 0; i < 6; i++) knock(ac, i * 0.045 + Math.random() * 0.02, 0.35);
  },
  deal: (ac) => {
    for (let i = 0; i < 4; i++) knock(ac, i * 0.06, 0.25);
  },
  lost: (ac) => tone(ac, 440, 0, 0.45, 0.2, "sine", 180),
  won: (ac) => tone(ac, 440, 0, 0.35, 0.18, "sine", 880),
  over: (ac) => [523, 659, 784].forEach((f, i) => tone(ac, f, i * 0.15, i === 2 ? 0.6 : 0.18, 0.2, "triangle")),
};

/** How long each cue holds the speaker before the next may start (s). */
const LENGTH: Record<CueKind, number> = { turn: 0.4, bid: 0.1, dudo: 0.35, calza: 0.35, reveal: 0.3, deal: 0.25, lost: 0.45, won: 0.35, over: 0.8 };

/** Plays `kind` if sound is on, after the cues before it. Each cue played is told to the
 * page as a `dudo-cue` event (the browser tests listen for it). */
export function cue(kind: CueKind) {
  if (!soundOn()) return;
  const ac = audio();
  if (!ac) return;
  const start = Math.max(ac.currentTime, freeAt);
  // What the table does is never dropped; a bid or a deal in a flood of them is.
  if (start - ac.currentTime > MOST_BEHIND && (kind === "bid" || kind === "deal" || kind === "won")) return;
  base = start;
  freeAt = start + LENGTH[kind];
  CUES[kind](ac);
  document.dispatchEvent(new CustomEvent("dudo-cue", { detail: kind }));
}
