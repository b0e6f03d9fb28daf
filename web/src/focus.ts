// Keyboard play: where the focus goes when the page changes under it.
import { useEffect, useRef } from "preact/hooks";

/** For a keyboard player: when a prompt arrives and nothing has the focus (the last move's
 * buttons went away with it), the move's first control takes it. */
export function useFocusOnArrival<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    // A bid's quantity, else the first button.
    const panel = ref.current;
    const first = panel?.querySelector<HTMLElement>("input.quantity") ?? panel?.querySelector<HTMLElement>("button, input, select");
    first?.focus({ preventScroll: true });
  }, []);
  return ref;
}
