// A table people share, in real browsers: Ana at a desktop, Ben on a phone (390×844), at a
// dudo-server whose tables wait 8 s after each showdown (the test runs it with
// --default-reveal-pause-ms 8000).
//
// 1. Talk: Ana says a line, Ben taps a reaction; each sees the other's beside the story.
// 2. The reveal is shared: after a showdown both pages hold the reveal with "Next round", and
//    the round goes on once both have said so, long before the 8 s are up.
// 3. The host's pause: Ben's phone shows who paused; Ana resumes.
// 4. A seat on another device: Ben opens his seat's own link on a second phone and plays there.
// 5. A latecomer (a spectator) sees the story so far, scrolled to the newest.
// 6. Game over: Ana's "Play again" starts another game with the same seats.
//
// usage: node together.mjs HOST:PORT [SCREENSHOT_DIR]
import { fail, launch } from "./common.mjs";

const [addr, shots] = process.argv.slice(2);
const base = `http://${addr}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const shot = async (page, name) => shots && (await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true }));
const talk = (page) => page.getByRole("region", { name: "Talk" }).locator("li").allTextContents();

async function until(what, check, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(100);
  }
  fail(`never: ${what}`);
}

/** One move where the page is asked for one: dudo on a bid of 2 or more, else the lowest
 * bid; a call window is let pass. True if it moved. */
async function playOnce(page) {
  const move = page.getByRole("region", { name: "Your move" });
  if (!(await move.count())) return false;
  try {
    const title = (await move.locator("h2").textContent({ timeout: 500 })) ?? "";
    if (title.startsWith("Call")) {
      await page.keyboard.press("n");
      return true;
    }
    const dudo = move.getByRole("button", { name: /^Dudo/ });
    if (await dudo.count()) await dudo.first().click({ timeout: 500 });
    else await move.getByRole("button", { name: /^Bid / }).click({ timeout: 500 });
    return true;
  } catch {
    return false;
  }
}

const browser = await launch();
try {
  const ana = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  ana.on("dialog", (d) => void d.accept());
  await ana.goto(`${base}/`);
  await ana.getByLabel("Rules").selectOption("fibbing");
  await ana.getByLabel("Your name").fill("Ana");
  await ana.getByLabel("Seats").fill("2");
  await ana.getByLabel("Dice each").fill("2");
  await ana.getByRole("button", { name: "Create the table" }).click();
  await ana.waitForURL(/\/t\/[A-Z0-9]+$/, { timeout: 10_000 });
  const link = ana.url();
  const ben = await (await browser.newContext(phone)).newPage();
  ben.on("dialog", (d) => void d.accept());
  await ben.goto(link);
  await ben.getByLabel("Your name").fill("Ben");
  await ben.getByRole("button", { name: "Sit down" }).click();
  await ben.getByText("Ben (you)").waitFor({ timeout: 10_000 });
  // The host's Leave is not offered before the start: the table is hers to start or close.
  if (await ana.getByRole("button", { name: "Leave the table" }).count()) fail("the host is offered Leave before the start");
  await ana.getByRole("button", { name: "Start the game" }).click();

  // ---- 1. Talk ----
  await ana.getByLabel("Say something").fill("good luck, Ben");
  await ana.getByRole("button", { name: "Say", exact: true }).click();
  await until("Ben reads Ana's line", async () => (await talk(ben)).some((l) => l.includes("Ana: good luck, Ben")));
  await ben.getByRole("button", { name: "Laugh" }).click();
  await until("Ana sees Ben laugh", async () => (await talk(ana)).some((l) => l.includes("Ben laughs")));
  console.log("talk: Ana's line reached Ben's phone, Ben's laugh reached Ana");

  // ---- 2. The shared reveal ----
  const nextButton = (page) => page.getByRole("button", { name: "Next round" });
  let waited = false;
  for (let i = 0; i < 200 && !waited; i++) {
    await Promise.all([playOnce(ana), playOnce(ben)]);
    waited = (await nextButton(ana).count()) > 0 && (await nextButton(ben).count()) > 0;
    if (!waited) await sleep(100);
  }
  if (!waited) fail("no showdown held the reveal with a Next round button");
  if (await ben.getByRole("region", { name: "Your move" }).count()) fail("Ben was asked to move during the reveal");
  await shot(ana, "reveal-desktop");
  await shot(ben, "reveal-phone");
  const heldAt = Date.now();
  await ana.getByRole("button", { name: "Next round" }).click();
  await ben.getByRole("button", { name: "Next round" }).click();
  await until("the next round begins once both said next", async () => (await nextButton(ana).count()) === 0, 5_000);
  const held = Date.now() - heldAt;
  if (held > 5_000) fail(`the round waited ${held} ms after both said next`);
  console.log(`the reveal was held for both until both said next (${held} ms after the first click)`);

  // ---- 3. The pause ----
  await ana.getByRole("button", { name: "Pause the game" }).click();
  const banner = ben.getByRole("region", { name: "Paused" });
  await banner.waitFor({ timeout: 5_000 });
  const said = (await banner.textContent()) ?? "";
  if (!said.includes("Ana paused the game")) fail(`the pause banner says: ${said}`);
  // Ana reads it about herself as "You".
  const own = ana.getByRole("region", { name: "Paused" });
  await own.waitFor({ timeout: 5_000 });
  const hers = (await own.textContent()) ?? "";
  if (!hers.includes("You paused the game")) fail(`Ana's pause banner says: ${hers}`);
  await shot(ben, "paused-phone");
  // The host's panel offers Resume where it offered Pause; Ana resumes from the banner.
  if (!(await ana.getByRole("region", { name: "Host" }).getByRole("button", { name: "Resume the game" }).count())) fail("the host's panel has no Resume");
  if (await ben.getByRole("button", { name: "Resume the game" }).count()) fail("Ben, not the host, is offered Resume at once");
  await own.getByRole("button", { name: "Resume the game" }).click();
  await until("the pause is over on Ben's phone", async () => (await banner.count()) === 0);
  console.log("the pause: Ben's phone said who paused, Ana's host panel offered Resume, and Ana resumed");

  // ---- 4. Ben's seat on another device ----
  await ben.getByRole("button", { name: "Play this seat on another device" }).click();
  const seatLink = await ben.getByLabel("Your seat's link").inputValue();
  if (!seatLink.includes("#rejoin=")) fail(`the seat's link: ${seatLink}`);
  const phone2 = await (await browser.newContext(phone)).newPage();
  await phone2.goto(seatLink);
  await phone2.getByText("Ben (you)").waitFor({ timeout: 10_000 });
  if (phone2.url().includes("rejoin")) fail("the link's secret stayed in the address bar");
  console.log("Ben's seat opened on a second phone from its own link");

  // ---- 5. A latecomer ----
  const late = await (await browser.newContext(phone)).newPage();
  await late.goto(link);
  const lines = late.getByRole("region", { name: "What happened" }).locator("li");
  await until("the latecomer sees the story so far", async () => (await lines.count()) > 3);
  const scrolled = await late.evaluate(() => {
    const el = document.querySelector(".story ol");
    return el ? el.scrollHeight - el.scrollTop - el.clientHeight < 5 : false;
  });
  if (!scrolled) fail("the latecomer's story is not scrolled to the newest");
  console.log(`a latecomer saw the story so far: ${await lines.count()} lines, the newest in view`);

  // ---- 6. To the end, then Play again ----
  const playAgain = ana.getByRole("button", { name: /^Play again/ });
  for (let i = 0; i < 600 && !(await playAgain.count()); i++) {
    for (const page of [ana, phone2]) {
      const next = page.getByRole("button", { name: "Next round" });
      if ((await next.count()) && (await next.isEnabled())) await next.click().catch(() => {});
    }
    await Promise.all([playOnce(ana), playOnce(phone2)]);
    await sleep(50);
  }
  if (!(await playAgain.count())) fail("no Play again at the game's end");
  await shot(ana, "over-desktop");
  await playAgain.click();
  await until("another game begins", async () => (await ana.getByRole("region", { name: "Game over" }).count()) === 0);
  console.log("game over: Play again started another game with the same seats");
  console.log("a table shared: talk, the reveal, the pause, another device, a latecomer, play again");
} finally {
  await browser.close();
}
