// The table as a game, in a real browser at a real dudo-server:
//
// 1. A whole game on a phone's screen (with touch): each time the cups are lifted the table
//    is in view (the page was scrolled down to the talk before), the cups lift one by one
//    (animations run), the keys' hints are hidden on a touch screen, the rules' values are
//    readable, and the tab's title says "Your turn" and the clock while it is yours.
// 2. Sound is off until chosen, and no audio starts before; chosen, each cue plays (your turn,
//    a bid, dudo, calza, the reveal, a lost die, game over), each starting Web Audio nodes.
// 3. A browser asking for reduced motion sees no animation at a reveal.
// 4. The front page's worked example replays on its own and to its end, and steps back.
//
// usage: node table.mjs HOST:PORT [SCREENSHOT_DIR]
// Prints what it checked; exits non-zero with the reason on the first failure.
import { fail, launch } from "./common.mjs";

const [addr, shots] = process.argv.slice(2);
const base = `http://${addr}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 860 } };

/** Counts what the page starts of Web Audio, and the cues it says it played. */
function listenToAudio() {
  window.__audio = { contexts: 0, started: 0, cues: [] };
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...a) {
      super(...a);
      window.__audio.contexts += 1;
    }
  };
  for (const Node of [OscillatorNode, AudioBufferSourceNode]) {
    const start = Node.prototype.start;
    Node.prototype.start = function (...a) {
      window.__audio.started += 1;
      return start.apply(this, a);
    };
  }
  document.addEventListener("dudo-cue", (e) => window.__audio.cues.push(e.detail));
}

/** A fibbing table of `seats` (bots fill it) with `dice` each, from the front page; started. */
async function playTable(page, name, seats, dice) {
  await page.goto(`${base}/`);
  await page.getByLabel("Rules").selectOption("fibbing");
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Seats").fill(String(seats));
  await page.getByLabel("Dice each").fill(String(dice));
  await page.getByRole("button", { name: "Create the table" }).click();
  await page.waitForURL(/\/t\/[A-Z0-9]+$/, { timeout: 10_000 });
  for (let i = 1; i < seats; i++) {
    await page.getByRole("button", { name: "Add a bot" }).click();
    await page.getByRole("list", { name: "Seats" }).locator("li:not(.free)").nth(i).waitFor({ timeout: 5_000 });
  }
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.getByRole("region", { name: "The table" }).waitFor();
}

/** One move if asked: a calza where it may be called and `calza`, else dudo on a bid of 3 or
 * more, else the lowest bid; a call window passed. True if it moved. */
async function moveOnce(page, { calza = false } = {}) {
  const move = page.getByRole("region", { name: "Your move" });
  if (!(await move.count())) return false;
  try {
    const title = (await move.locator("h2").textContent({ timeout: 1_000 })) ?? "";
    const button = (name) => move.getByRole("button", { name });
    if (calza && (await button("Calza!").count())) await button("Calza!").click({ timeout: 1_000 });
    else if (title.startsWith("Call")) await button("No call").click({ timeout: 1_000 });
    else {
      const toBeat = (await page.locator(".to-beat").textContent({ timeout: 1_000 })) ?? "";
      const quantity = Number(toBeat.match(/bid (\d+)/)?.[1] ?? 0);
      if (quantity >= 3 && (await button(/^Dudo/).count())) await button(/^Dudo/).first().click({ timeout: 1_000 });
      else await button(/^Bid /).click({ timeout: 1_000 });
    }
    return true;
  } catch {
    return false; // the prompt went (a call window closed) while we read it
  }
}

/** Notes each reveal as the page shows it, in the page itself (a busy machine's checks from
 * outside can miss one): whether the table and its count were in view just after the cups
 * went up, and what moved (`window.__reveals`). */
async function watchReveals(page) {
  await page.evaluate(() => {
    window.__reveals = [];
    let was = false;
    const look = () => {
      const up = !!document.querySelector(".spot .faces.shown");
      if (up && !was) {
        const moving = document.getAnimations().map((a) => a.animationName ?? "transition");
        setTimeout(() => {
          const felt = document.querySelector('[aria-label="The table"]')?.getBoundingClientRect();
          const count = (document.querySelector(".big-count") ?? document.querySelector(".felt .center"))?.getBoundingClientRect();
          const inView = !!felt && !!count && felt.top >= -1 && count.top >= 0 && count.bottom <= innerHeight;
          window.__reveals.push({ inView, moving, at: felt?.top });
        }, 300);
      }
      was = up;
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  });
}

const over = async (page) => (await page.getByRole("region", { name: "Game over" }).count()) > 0;

const browser = await launch();
try {
  // ---- 1: a whole game on a phone. ----
  const phone = await (await browser.newContext(PHONE)).newPage();
  phone.on("pageerror", (e) => fail(`the page threw: ${e.message}`));
  await playTable(phone, "Ana", 3, 3);
  await watchReveals(phone);
  const seen = () => phone.evaluate(() => window.__reveals);
  let titled = false;
  let moved = 0;
  let shotReveal = false;
  const until = Date.now() + 150_000;
  while (!(await over(phone)) && Date.now() < until) {
    if (shots && !shotReveal && (await seen()).length > 0) {
      shotReveal = true;
      await phone.screenshot({ path: `${shots}/phone-reveal.png` });
    }
    if (await phone.getByRole("region", { name: "Your move" }).count()) {
      const title = await phone.title();
      if (title.startsWith("Your turn")) titled = true;
      else fail(`the tab's title on Ana's turn is "${title}"`);
      if (moved === 0) {
        // A touch screen has no keys to press: no hints of them.
        if (await phone.locator(".keys").count()) {
          if (await phone.locator(".keys").first().isVisible()) fail("the keys' hints are shown on a touch screen");
        }
        if (shots) {
          await phone.evaluate(() => window.scrollTo(0, 0));
          await phone.screenshot({ path: `${shots}/table-phone.png` });
        }
      }
      if (await moveOnce(phone)) {
        moved += 1;
        // The title says your turn exactly while the page asks for your move (read at once).
        await phone
          .waitForFunction(() => document.title.startsWith("Your turn") === !!document.querySelector('[aria-label="Your move"]'), null, { timeout: 3_000 })
          .catch(async () => fail(`the title says "${await phone.title()}" after the move`));
      }
    }
    // Between reveals Ana reads the talk, away from the table: a reveal must bring it back.
    // (Checked and scrolled at once in the page: a reveal drawn after it scrolls back.)
    await phone.evaluate(() => document.querySelector(".spot .faces.shown") || window.scrollTo(0, document.body.scrollHeight));
    await sleep(100);
  }
  if (!(await over(phone))) fail("the phone's game did not end in time");
  await sleep(400);
  const reveals = await seen();
  const off = reveals.filter((r) => !r.inView);
  if (off.length > 0) fail(`${off.length} of ${reveals.length} reveals happened off screen on the phone (the table at ${off[0].at})`);
  if (reveals.length < 2) fail(`only ${reveals.length} reveals seen on the phone`);
  if (!titled) fail("Ana never had a turn");
  // Something moves at a reveal (the cups lift one by one).
  const animated = reveals.filter((r) => r.moving.length > 0).length;
  if (animated === 0) fail("nothing moved at a reveal");
  if (shots) await phone.screenshot({ path: `${shots}/phone-over.png` });
  // The rules: how to play in words, and the settings' values readable on a phone.
  const rules = phone.locator("details.rules");
  await rules.locator("summary").first().click();
  const howTo = (await rules.locator(".how-to").first().textContent()) ?? "";
  if (!/Ones are wild/.test(howTo) || !/Calza/.test(howTo)) fail(`how to play does not say the wilds and calza: ${howTo}`);
  await rules.locator("details.settings summary").click();
  const width = await rules.locator(".settings dd").first().evaluate((el) => el.getBoundingClientRect().width);
  if (width < 120) fail(`the rules' values are ${width}px wide on a phone`);
  console.log(`a whole game on a phone: ${reveals.length} reveals, each in view (${animated} moving); ${moved} moves; title said your turn; rules readable (${Math.round(width)} px)`);

  // ---- 2: sound, off until chosen; then every cue. ----
  const ears = await browser.newContext(DESKTOP);
  await ears.addInitScript(listenToAudio);
  const ben = await ears.newPage();
  ben.on("pageerror", (e) => fail(`the page threw: ${e.message}`));
  // Four seats: room for a calza (not the bidder's nor the next player's, three players in).
  await playTable(ben, "Ben", 4, 3);
  // A few moves with sound off: no audio at all.
  for (let i = 0; i < 40 && (await ben.evaluate(() => window.__audio.cues.length)) === 0; i++) {
    await moveOnce(ben);
    await sleep(100);
  }
  const before = await ben.evaluate(() => window.__audio);
  if (before.contexts !== 0 || before.started !== 0 || before.cues.length !== 0) fail(`sound played before it was chosen: ${JSON.stringify(before)}`);
  const toggle = ben.getByRole("button", { name: /Sound off/ });
  await toggle.click();
  await ben.getByRole("button", { name: /Sound on/ }).waitFor();
  // The choice is remembered in this browser.
  if ((await ben.evaluate(() => localStorage.getItem("dudo.sound"))) !== "on") fail("the sound's choice is not kept");
  const want = ["turn", "bid", "dudo", "calza", "reveal", "lost", "over"];
  const heard = new Set();
  const soundUntil = Date.now() + 150_000;
  for (let games = 0; Date.now() < soundUntil && want.some((c) => !heard.has(c)); ) {
    if (await over(ben)) {
      for (const c of await ben.evaluate(() => window.__audio.cues)) heard.add(c);
      if (want.every((c) => heard.has(c))) break;
      games += 1;
      await ben.getByRole("button", { name: /^Play again/ }).click();
      await sleep(500);
    }
    await moveOnce(ben, { calza: !heard.has("calza") });
    for (const c of await ben.evaluate(() => window.__audio.cues)) heard.add(c);
    await sleep(100);
  }
  const after = await ben.evaluate(() => window.__audio);
  const missing = want.filter((c) => !heard.has(c));
  if (missing.length) fail(`these cues never played: ${missing.join(", ")} (heard ${[...heard].join(", ")})`);
  if (after.contexts < 1 || after.started < want.length) fail(`cues said played but Web Audio barely started: ${JSON.stringify({ ...after, cues: after.cues.length })}`);
  console.log(`sound: none before it was chosen; then ${want.join(", ")} each played (${after.started} audio nodes started)`);

  // ---- 3: reduced motion: nothing animates. ----
  const still = await (await browser.newContext({ ...DESKTOP, reducedMotion: "reduce" })).newPage();
  await playTable(still, "Cy", 3, 2);
  await watchReveals(still);
  const stillUntil = Date.now() + 60_000;
  const stillSeen = () => still.evaluate(() => window.__reveals);
  while ((await stillSeen()).length < 3 && Date.now() < stillUntil && !(await over(still))) {
    await moveOnce(still);
    await sleep(60);
  }
  await sleep(400);
  const stillReveals = await stillSeen();
  const checked = stillReveals.length;
  const running = stillReveals.flatMap((r) => r.moving);
  if (running.length > 0) fail(`a browser asking for reduced motion sees ${running.join(", ")}`);
  if (checked === 0) fail("no reveal seen with reduced motion");
  console.log(`reduced motion: ${checked} reveal moments, no animation`);

  // ---- 4: the front page's worked example. ----
  const front = await (await browser.newContext(DESKTOP)).newPage();
  await front.goto(`${base}/`);
  const example = front.getByRole("region", { name: "A worked example" });
  const step = example.getByRole("status");
  const first = await step.textContent();
  await example.getByRole("button", { name: "Play", exact: true }).click();
  await front.waitForFunction((was) => document.querySelector(".example [role=status]")?.textContent !== was, first, { timeout: 5_000 });
  await example.getByRole("button", { name: "Pause" }).click();
  const next = example.getByRole("button", { name: /^Next step/ });
  const exampleLine = async () => (await example.locator(".example-line").textContent()) ?? "";
  // Step to the first showdown: the cups up, the count in the middle (the docs' picture).
  for (let i = 0; i < 200 && !/^Cups up/.test(await exampleLine()); i++) await next.click();
  if (!/^Cups up/.test(await exampleLine())) fail("the example shows no showdown");
  if (shots) {
    await front.waitForTimeout(1500);
    await example.screenshot({ path: `${shots}/example.png` });
  }
  // A step back shows the table as it stood a step before.
  const at = await step.textContent();
  const cupsUp = await exampleLine();
  await example.getByRole("button", { name: /Previous step/ }).click();
  if ((await step.textContent()) === at || (await exampleLine()) === cupsUp) fail(`Previous step did not step back from "${at}"`);
  await next.click();
  if ((await exampleLine()) !== cupsUp) fail("Next step after Previous step is not the same showdown");
  for (let i = 0; i < 200 && (await next.isEnabled()); i++) await next.click();
  const line = (await example.locator(".example-line").textContent()) ?? "";
  if (!/Roger wins the game!/.test(line)) fail(`the example ends with "${line}"`);
  console.log(`the worked example replays: ${first} → ${await step.textContent()}, ending "${line}"`);

  if (shots) {
    const desk = await (await browser.newContext(DESKTOP)).newPage();
    await playTable(desk, "Dee", 4, 3);
    for (let i = 0; i < 100; i++) {
      if (await desk.getByRole("region", { name: "Your move" }).count()) break;
      await sleep(100);
    }
    await desk.evaluate(() => window.scrollTo(0, 0));
    await desk.screenshot({ path: `${shots}/table-desktop.png` });
  }
  console.log("the table as a game: done");
} finally {
  await browser.close();
}
