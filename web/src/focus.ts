// Keyboard play: where the focus goes when the page changes under it.
import { useEffect, useRef } from "preact/hooks";

/** For a keyboard player: when a prompt arrives and nothing has the focus (the last move's
 * buttons went away with it), the move's first control takes it. In a call window
 * (`calling`) the panel itself takes it instead: a call is never what Enter or Space does
 * for a player who pressed it for something else (the panel says which keys call). */
export function useFocusOnArrival<T extends HTMLElement>(calling = false) {
  const ref = useRef<T>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    const panel = ref.current;
    if (calling) {
      panel?.focus({ preventScroll: true });
      return;
    }
    // A bid's quantity, else the first button.
    const first = panel?.querySelector<HTMLElement>("input.quantity") ?? panel?.querySelector<HTMLElement>("button, input, select");
    first?.focus({ preventScroll: true });
  }, []);
  return ref;
}
