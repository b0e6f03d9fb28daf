// Calling people back to the table: the tab's title says "Your turn" and the clock while it
// is yours; a browser notification says so when the tab is hidden (if asked for); and the
// table's cues are played as sounds (if turned on). Both choices are remembered here.
import { useEffect, useRef, useState } from "preact/hooks";
import { cue, setSound, soundOn } from "./sound";
import type { TableState } from "./session";

const NOTIFY = "dudo.notify";

/** The page's title, the sounds of what happens and the turn's notification, for one table. */
export function useAttention(state: TableState | undefined, code: string, seated: boolean) {
  const [now, setNow] = useState(Date.now());
  const yours = seated && !!state?.prompt?.legal;
  useEffect(() => {
    if (!yours) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [yours]);
  const secs = yours && state?.deadline && state.deadline > now ? Math.ceil((state.deadline - now) / 1000) : undefined;
  useEffect(() => {
    document.title = yours ? `Your turn${secs !== undefined ? ` · ${secs} s` : ""} · dudo` : `dudo · table ${code}`;
  }, [yours, secs, code]);
  useEffect(() => () => void (document.title = "dudo: Liar's Dice"), []);
  // Each new cue once: its sound, and for your turn in a hidden tab, the notification.
  const heard = useRef(0);
  const cues = state?.cues ?? [];
  useEffect(() => {
    for (const c of cues) {
      if (c.id <= heard.current) continue;
      heard.current = c.id;
      cue(c.kind);
      if (c.kind === "turn" && document.hidden) notify(state?.table?.joinCode ?? code);
    }
  }, [cues.at(-1)?.id]);
}

function notify(code: string) {
  if (localStorage.getItem(NOTIFY) !== "on" || typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    new Notification("Your turn at dudo", { body: `Table ${code}: the others are waiting for you.`, tag: `dudo-${code}` });
  } catch {
    // A browser that only notifies from a service worker: the title says it instead.
  }
}

/** Sound on or off, off until chosen. */
export function SoundSwitch() {
  const [on, setOn] = useState(soundOn());
  return (
    <button
      type="button"
      class="switch"
      aria-pressed={on}
      title={on ? "Turn the table's sounds off" : "Turn the table's sounds on"}
      onClick={() => {
        setSound(!on);
        setOn(!on);
      }}
    >
      {on ? "🔊 Sound on" : "🔈 Sound off"}
    </button>
  );
}

/** A notification when it is your turn and this tab is hidden, once asked for. */
export function NotifySwitch() {
  const supported = typeof Notification !== "undefined";
  const [on, setOn] = useState(() => supported && localStorage.getItem(NOTIFY) === "on" && Notification.permission === "granted");
  const [note, setNote] = useState<string>();
  if (!supported) return null;
  return (
    <p>
      <label>
        <input
          type="checkbox"
          checked={on}
          onChange={async (e) => {
            const want = e.currentTarget.checked;
            setNote(undefined);
            if (want && Notification.permission !== "granted" && (await Notification.requestPermission()) !== "granted") {
              setNote("Your browser did not allow notifications: the tab's title still says when it is your turn.");
              setOn(false);
              return;
            }
            localStorage.setItem(NOTIFY, want ? "on" : "off");
            setOn(want);
          }}
        />{" "}
        Tell me when it is my turn while this tab is hidden
      </label>
      {note && <span class="summary"> {note}</span>}
    </p>
  );
}
