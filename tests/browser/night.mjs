// A game night nobody can freeze, in real browsers at a dudo-server whose game-night clock is
// short (the test's server runs with --default-move-ms): tables made from the page get it.
//
// 1. Enter and Space in a call window make no call: the focus is on the panel, not a button,
//    and the keys the panel names (N: no call) are the ones that answer.
// 2. A player closes the tab mid-round: the others see them away, and the game goes on to its
//    end with no host action (their moves are made when their clock runs out, and they are
//    taken out when away for good).
// 3. The host removes a player after a round's first bid, with a confirmation: the seat plays
//    the round out by default and goes at its end; the removed player's page says so.
//
// usage: node night.mjs HOST:PORT
// Prints what it checked; exits non-zero with the reason on the first failure.
import { fail, launch, storyOnceEnded } from "./common.mjs";

const [addr] = process.argv.slice(2);
const base = `http://${addr}`;
const started = Date.now();
const story = (page) => page.getByRole("region", { name: "What happened" }).locator("li").allTextContents();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Makes a fibbing table of `seats` from the front page with `dice` each; its link. */
async function makeTable(page, name, seats, dice = 2) {
  await page.goto(`${base}/`);
  await page.getByLabel("Rules").selectOption("fibbing");
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Seats").fill(String(seats));
  await page.getByLabel("Dice each").fill(String(dice));
  await page.getByRole("button", { name: "Create the table" }).click();
  await page.waitForURL(/\/t\/[A-Z0-9]+$/, { timeout: 10_000 });
  return page.url();
}

async function sitDown(page, link, name) {
  await page.goto(link);
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Sit down" }).click();
  await page.getByText(`${name} (you)`).waitFor({ timeout: 10_000 });
}

/** One move where the page is asked for one: no call in a window (by its key; left to the
 * caller unless `windows`), else a dudo on a bid of 2 or more, else the lowest bid. True if
 * it moved. */
async function playOnce(page, windows = true) {
  const move = page.getByRole("region", { name: "Your move" });
  if (!(await move.count())) return false;
  try {
    const title = (await move.locator("h2").textContent({ timeout: 1_000 })) ?? "";
    if (title.startsWith("Call")) {
      if (!windows) return false;
      await page.keyboard.press("n");
    } else {
      const toBeat = (await page.locator(".to-beat").textContent({ timeout: 1_000 })) ?? "";
      const quantity = Number(toBeat.match(/bid (\d+)/)?.[1] ?? 0);
      const dudo = move.getByRole("button", { name: /^Dudo/ });
      if (quantity >= 2 && (await dudo.count())) await dudo.first().click({ timeout: 1_000 });
      else await move.getByRole("button", { name: /^Bid / }).click({ timeout: 1_000 });
    }
    return true;
  } catch {
    // The prompt moved on while we looked (a window closed, a clock ran out): look again.
    return false;
  }
}

async function over(page) {
  return (await page.getByRole("list", { name: "Standings" }).count()) > 0;
}

const browser = await launch();
try {
  // ---- 1 and 2: Ana, Ben and a bot; Ben closes his tab mid-round. ----
  const ana = await (await browser.newContext()).newPage();
  ana.on("dialog", (d) => void d.accept());
  const link = await makeTable(ana, "Ana", 3, 3);
  const clock = (await ana.locator(".bar .clock").textContent()) ?? "";
  if (!/clock: /.test(clock)) fail(`a table made from the page has no clock: "${clock}"`);
  console.log(`a table made from the page has the server's game-night clock: ${clock}`);
  const benContext = await browser.newContext();
  const ben = await benContext.newPage();
  await sitDown(ben, link, "Ben");
  await ben.getByText(/Waiting for Ana to start the game/).waitFor({ timeout: 10_000 });
  await ana.getByRole("button", { name: "Add a bot" }).click();
  await ana.getByRole("button", { name: "Start the game" }).click();
  await ana.getByRole("region", { name: "The table" }).waitFor({ timeout: 10_000 });

  // 1: a call window at Ana's seat: Enter and Space call nothing.
  let windows = 0;
  let benGone = false;
  let awaySeen = false;
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline && !(await over(ana))) {
    const move = ana.getByRole("region", { name: "Your move" });
    const title = (await move.count()) ? ((await move.locator("h2").textContent().catch(() => "")) ?? "") : "";
    if (title.startsWith("Call") && windows < 2) {
      const focused = await ana.evaluate(() => {
        const a = document.activeElement;
        return a ? `${a.tagName} ${a.textContent?.slice(0, 30) ?? ""}` : "";
      });
      if (/^BUTTON/.test(focused)) fail(`a call window gave a button the focus: ${focused}`);
      const keysSaid = await move.locator(".keys").textContent({ timeout: 2_000 }).catch(() => "");
      // The window may close while we look (its time ran out, another seat called): look again.
      const still = (await move.count()) ? ((await move.locator("h2").textContent({ timeout: 500 }).catch(() => "")) ?? "") : "";
      if (!keysSaid && !still.startsWith("Call")) continue;
      if (!keysSaid?.includes("no call")) fail(`the call window does not say which keys call: "${keysSaid}"`);
      const before = (await story(ana)).length;
      await ana.keyboard.press("Enter");
      await ana.keyboard.press(" ");
      await sleep(300);
      const lines = (await story(ana)).slice(before);
      const called = lines.find((l) => /^Ana calls/.test(l));
      if (called) fail(`Enter or Space in a call window made a call: ${called}`);
      await ana.keyboard.press("n");
      windows += 1;
      console.log(`call window ${windows}: the focus was on "${focused.trim()}"; Enter and Space called nothing; N let the claim pass`);
      continue;
    }
    await playOnce(ana, windows >= 2);
    if (!benGone) await playOnce(ben);
    // 2: once a round has a bid, Ben closes his tab.
    if (!benGone && windows >= 1) {
      const toBeat = (await ana.locator(".to-beat").textContent().catch(() => "")) ?? "";
      if (/ bid \d/.test(toBeat)) {
        await benContext.close();
        benGone = true;
        console.log(`Ben closed his tab mid-round (${toBeat.trim()})`);
        // The server sees his streams close within a second or two and tells the table.
        await ana.getByRole("list", { name: "Seats" }).getByText(/away \d+ (s|min)/).waitFor({ timeout: 15_000 });
        awaySeen = true;
        console.log("Ana's page shows Ben away");
      }
    }
    if (benGone && !awaySeen) {
      const marks = (await ana.getByRole("list", { name: "Seats" }).textContent()) ?? "";
      if (/Ben.*away \d+ (s|min)/.test(marks)) {
        awaySeen = true;
        console.log("Ana's page shows Ben away");
      }
    }
    await sleep(100);
  }
  if (windows === 0) {
    console.error((await story(ana)).join("\n"));
    fail("Ana was never asked in a call window");
  }
  if (!benGone) fail("the game ended before Ben could close his tab");
  if (!awaySeen) fail("Ana's page never showed Ben away");
  if (!(await over(ana))) {
    console.error((await story(ana)).slice(-20).join("\n"));
    fail("the game did not go on to its end after Ben closed his tab");
  }
  const night = await storyOnceEnded(ana);
  const out = night.find((l) => /Ben (ran out of time twice in a row|has been away for a whole round)/.test(l));
  console.log(`the game went on to its end with no host action${out ? `; ${out}` : " (it ended before Ben was away for good)"}`);
  const hostActed = night.find((l) => /The host removes|reset/.test(l));
  if (hostActed) fail(`the host acted: ${hostActed}`);

  // ---- 3: the host removes Cat after a round's first bid. ----
  const dee = await (await browser.newContext()).newPage();
  dee.on("dialog", (d) => void d.accept());
  const second = await makeTable(dee, "Dee", 3);
  const cat = await (await browser.newContext()).newPage();
  await sitDown(cat, second, "Cat");
  await dee.getByRole("button", { name: "Add a bot" }).click();
  await dee.getByRole("button", { name: "Start the game" }).click();
  await dee.getByRole("region", { name: "The table" }).waitFor({ timeout: 10_000 });
  let removed = false;
  const until = Date.now() + 120_000;
  while (Date.now() < until && !(await over(dee))) {
    if (!removed) {
      const toBeat = (await dee.locator(".to-beat").textContent().catch(() => "")) ?? "";
      if (/ bid \d/.test(toBeat)) {
        await dee.getByRole("button", { name: "Remove Cat" }).click({ timeout: 2_000 });
        removed = true;
        await dee.getByText(/The host removes Cat from the game/).first().waitFor({ timeout: 5_000 });
        console.log(`the host removed Cat after a round's first bid (${toBeat.trim()})`);
        continue;
      }
      await playOnce(cat);
    }
    await playOnce(dee);
    await sleep(100);
  }
  if (!removed) fail("the game ended before the host could remove Cat");
  const lines = await story(dee);
  const when = lines.find((l) => /^The host removes Cat/.test(l));
  if (!when) fail(`the story does not say the host removed Cat:\n${lines.join("\n")}`);
  const left = lines.find((l) => /^Cat leaves the game, finishing/.test(l));
  if (!left) fail(`Cat never left the game:\n${lines.join("\n")}`);
  if (await dee.getByRole("button", { name: "Remove Cat" }).count()) fail("a Remove button is still shown for a seat that is gone");
  await cat.getByText(/removed you|The host removed/i).first().waitFor({ timeout: 10_000 });
  if (!(await over(dee))) fail("the game did not end after Cat was removed");
  console.log(`"${when}" then "${left}"; Cat's page says so; the game went on to its end`);
  console.log(`a game night nobody could freeze: ${Date.now() - started} ms`);
} finally {
  await browser.close();
}
process.exit(0);
