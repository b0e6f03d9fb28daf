// What every browser script here shares: Debian's chromium, launched as this machine allows
// (its own download cannot work here), and how a script says it failed.
import { chromium } from "playwright-core";

/** The system chromium, headless (`DUDO_CHROMIUM` names another). */
export function launch() {
  return chromium.launch({
    executablePath: process.env.DUDO_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
}

/** Says why the check failed and ends the script with a non-zero status. */
export function fail(why) {
  console.error(`FAIL: ${why}`);
  process.exit(1);
}

/**
 * The lines of a page's story once its last one tells the game's end. Each page hears the end
 * on its own stream, so a second page may hear it a moment after the first; waits up to `ms`
 * and returns the story as it is then, ended or not, for the caller to judge.
 */
/** Whether a story's line is the game's end, in the server's words. */
export const endsTheGame = (line) => / wins the game!|^The game is over/.test(line ?? "");

export async function storyOnceEnded(page, ms = 10_000) {
  const lines = page.getByRole("region", { name: "What happened" }).locator("li");
  const until = Date.now() + ms;
  for (;;) {
    const story = await lines.allTextContents();
    if (endsTheGame(story.at(-1)) || Date.now() > until) return story;
    await new Promise((r) => setTimeout(r, 50));
  }
}
