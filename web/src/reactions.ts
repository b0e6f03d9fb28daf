// The quick reactions, as their buttons and the felt's bubbles show them.
import { Reaction } from "./gen/dudo/v1/service_pb";

/** Each reaction: what its button shows, and its name for a screen reader. */
export const REACTIONS: [Reaction, string, string][] = [
  [Reaction.LAUGH, "😂 Ha!", "Laugh"],
  [Reaction.LIAR, "🤥 Liar!", "Cry liar"],
  [Reaction.APPLAUSE, "👏 Bravo", "Applaud"],
  [Reaction.WOW, "😮 Wow", "Gasp"],
  [Reaction.GOOD_GAME, "🤝 GG", "Good game"],
];
