// The individual-hand games and the points game in a browser: for each preset named, a person
// makes a table, adds a bot, and plays a whole game from the page against it: taking the
// cup, re-rolling some dice, claiming, lifting the cup (or guessing, watching and doubting).
// A second browser watches. Hands must be written in the game's own symbols. Then the game's
// replay is stepped through round by round (the server needs records: not --db none).
//
// usage: node hands.mjs HOST:PORT PRESET...
// Prints what it checked; exits non-zero with the reason on the first failure.
import { fail, launch, storyOnceEnded, endsTheGame } from "./common.mjs";

const [addr, ...presets] = process.argv.slice(2);
// With DUDO_SCREENSHOTS=DIR, a poker-dice turn is left there as hand.png (docs/playing.md).
const shots = process.env.DUDO_SCREENSHOTS;
let shotHand = !shots;
const base = `http://${addr}`;

/** The symbols a hand of this game is written in. */
const SYMBOLS = { "poker-dice": /^[9TJQKA]{5}$/, stanford: /^[1-6]{6}$/, mexican: /^[1-6]{3}$/, "mexican-two-dice": /^[1-6]{2}$/ };

const browser = await launch();
try {
  for (const preset of presets) {
    const started = Date.now();
    const page = await (await browser.newContext({ viewport: { width: 900, height: 1000 } })).newPage();
    await page.goto(`${base}/`);
    await page.getByLabel("Rules").selectOption(preset);
    await page.getByLabel("Your name").fill("Dee");
    await page.getByLabel("Seats").fill("2");
    await page.getByRole("button", { name: "Create the table" }).click();
    await page.waitForURL(/\/t\/[A-Z0-9]+$/, { timeout: 10_000 });
    const watcher = await (await browser.newContext()).newPage();
    await watcher.goto(page.url());
    await page.getByRole("button", { name: "Add a bot" }).click();
    await page.getByRole("button", { name: "Start the game" }).click();
    await page.getByRole("region", { name: "The table" }).waitFor({ timeout: 10_000 });

    const done = { take: 0, reroll: 0, roll: 0, claim: 0, lift: 0, guess: 0, watch: 0, doubt: 0, bark: 0 };
    let lifted = 0;
    // Looks in a row that found a prompt with nothing to press: one can be a prompt caught as it
    // is redrawn (seen under load); many in a row are a page that offers no way on.
    let stuck = 0;
    const deadline = Date.now() + Number(process.env.DUDO_GAME_SECONDS ?? 180) * 1000;
    while (Date.now() < deadline) {
      if (await page.getByRole("list", { name: "Standings" }).count()) break;
      if (await page.getByRole("region", { name: "The last challenge" }).count()) lifted += 1;
      const move = page.getByRole("region", { name: "Your move" });
      if (!(await move.count())) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const button = (name) => move.getByRole("button", { name });
      if (!shotHand && preset === "poker-dice" && (await page.getByText(/ claims [9TJQKA]{5}/).count()) && (await button(/^Claim /).count())) {
        await page.screenshot({ path: `${shots}/hand.png`, fullPage: true });
        shotHand = true;
      }
      const has = async (name) => (await button(name).count()) > 0;
      const chance = Math.random();
      try {
        if (await has(/dog's life/)) {
          await button(chance < 0.5 ? /^Bark/ : /^Decline/).click({ timeout: 2_000 });
          done.bark += 1;
        } else if ((await has("Lift the cup!")) && chance < 0.3) {
          await button("Lift the cup!").click({ timeout: 2_000 });
          done.lift += 1;
        } else if (await has("Take the cup")) {
          await button("Take the cup").click({ timeout: 2_000 });
          done.take += 1;
        } else if ((await move.getByRole("checkbox", { name: "re-roll" }).count()) && chance < 0.5) {
          await move.getByRole("checkbox", { name: "re-roll" }).first().check({ timeout: 2_000 });
          await button(/^Roll 1 die/).click({ timeout: 2_000 });
          done.reroll += 1;
        } else if (await has(/^Claim /)) {
          await button(/^Claim /).first().click({ timeout: 2_000 });
          done.claim += 1;
        } else if (await has(/^Roll /)) {
          await button(/^Roll /).first().click({ timeout: 2_000 });
          done.roll += 1;
        } else if ((await has(/^Doubt /)) && chance < 0.25) {
          await button(/^Doubt /).first().click({ timeout: 2_000 });
          done.doubt += 1;
        } else if ((await has("Watch")) && chance < 0.4) {
          await button("Watch").click({ timeout: 2_000 });
          done.watch += 1;
        } else if (await has(/^Guess /)) {
          await button(/^Guess /).click({ timeout: 2_000 });
          done.guess += 1;
        } else if (await has("Lift the cup!")) {
          await button("Lift the cup!").click({ timeout: 2_000 });
          done.lift += 1;
        } else if (await has("No call")) {
          await button("No call").click({ timeout: 2_000 });
        } else if (++stuck >= 40) {
          fail(`${preset}: nothing to press in "${await move.innerText()}"`);
        } else {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        stuck = 0;
      } catch {
        // The prompt moved on while we clicked: look again.
      }
      const refused = page.getByRole("alert");
      if (await refused.count()) {
        const text = await refused.first().innerText();
        // A claim that is not higher may be refused by name; anything else is a fault.
        if (!/Refused/.test(text)) fail(`${preset}: ${text}`);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    if (!(await page.getByRole("list", { name: "Standings" }).count())) {
      console.error((await page.locator("main").innerText()).slice(0, 2000));
      fail(`${preset}: the game did not end`);
    }
    const story = await storyOnceEnded(page);
    if (!endsTheGame(story.at(-1))) fail(`${preset}: the story does not end with the game: ${story.at(-1)}`);
    const hands = story.flatMap((l) => [...l.matchAll(/passes the cup: "([^"]+)"/g)].map((m) => m[1]));
    if (SYMBOLS[preset]) {
      if (hands.length === 0) fail(`${preset}: no claim in the story`);
      const odd = hands.find((h) => !SYMBOLS[preset].test(h));
      if (odd) fail(`${preset}: the hand "${odd}" is not written in the game's symbols`);
      if (!lifted && !story.some((l) => l.startsWith("The claim was"))) fail(`${preset}: no cup was lifted`);
    }
    const watched = await storyOnceEnded(watcher);
    if (!endsTheGame(watched.at(-1))) fail(`${preset}: the spectator did not see the game end`);
    // What was under the cup is the holder's alone while the game goes on (the game's end
    // opens the last hand's hidden facts to everyone, as the rules engine says).
    const lastHand = watched.findLastIndex((l) => /^Hand \d+:/.test(l));
    const told = watched.slice(0, lastHand).find((l) => / sees .* under the cup/.test(l));
    if (told) fail(`${preset}: the spectator was told what is under the cup: ${told}`);
    // The finished game's replay, from the table's link to it: every round, every cup.
    await page.getByRole("link", { name: /^Replay this game/ }).click({ timeout: 15_000 });
    const round = page.getByRole("region", { name: "The round" });
    // Making a replay runs the game through the engine again: slow on a machine busy with browsers.
    await round.waitFor({ timeout: 30_000 });
    const of = async () => ((await round.locator("nav span").textContent()) ?? "").match(/\((\d+) of (\d+)\)/);
    const total = Number((await of())?.[2] ?? 0);
    let cupsShown = 0;
    for (let i = 1; i <= total; i++) {
      if (Number((await of())?.[1]) !== i) fail(`${preset}: the replay is not at round ${i} of ${total}`);
      if (await round.getByText("Under the cup when it was lifted").count()) cupsShown += 1;
      const every = round.getByRole("heading", { name: /^Every cup · \d+ counted/ });
      if (await every.count()) {
        const said = Number(((await every.textContent()) ?? "").match(/(\d+) counted/)?.[1]);
        const counts = await round.locator(".count").allTextContents();
        if (counts.reduce((n, c) => n + Number(c.trim()), 0) !== said) fail(`${preset}: a replayed reveal does not add up`);
        cupsShown += 1;
      }
      if (i < total) await round.getByRole("button", { name: "Next →" }).click();
    }
    if (total < 2 || cupsShown === 0) fail(`${preset}: the replay showed ${total} rounds and ${cupsShown} cups`);
    const moves = Object.entries(done)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    console.log(
      `${preset}: a whole game against a bot (${moves}; ${hands.length} claims), replayed in ${total} rounds, ${Date.now() - started} ms`,
    );
    await page.context().close();
    await watcher.context().close();
  }
} finally {
  await browser.close();
}
