// The ladder and the records in a browser: the pool's board lists the player, the player's
// page draws one point a rated game and lists its games, and a game from there replays round
// by round with every cup shown and every reveal adding up. Keyboard only, on a phone's
// screen.
//
// usage: node pages.mjs HOST:PORT POOL NAME GAMES
// Prints what it checked; exits non-zero with the reason on the first failure.
import { fail, launch } from "./common.mjs";

const [addr, pool, name, games] = process.argv.slice(2);
const base = `http://${addr}`;

const browser = await launch();
try {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${base}/`);
  // From the front page to the ladder by keyboard.
  await page.getByRole("link", { name: "Ladder" }).focus();
  await page.keyboard.press("Enter");
  const board = page.getByRole("region", { name: `Pool ${pool}` });
  await board.getByRole("row").nth(1).waitFor({ timeout: 10_000 });
  const row = board.getByRole("row").filter({ hasText: name });
  if (!(await row.count())) fail(`${name} is not on ${pool}'s board: ${await board.innerText()}`);
  const cells = await row.first().getByRole("cell").allTextContents();
  if (cells[4] !== games) fail(`the board says ${cells[4]} games for ${name}, not ${games}: ${cells.join(" | ")}`);
  console.log(`board: ${cells.join(" | ")}`);

  await row.first().getByRole("link", { name }).focus();
  await page.keyboard.press("Enter");
  const chart = page.getByRole("img", { name: /^Rating chart/ });
  await chart.waitFor({ timeout: 10_000 });
  const label = (await chart.getAttribute("aria-label")) ?? "";
  if (!label.endsWith(`after ${games} games`)) fail(`the chart says "${label}", not ${games} games`);
  if ((await chart.locator("circle").count()) !== Number(games)) fail("the chart does not draw one point a game");
  const recent = page.getByRole("region", { name: "Recent games" }).getByRole("link");
  await recent.first().waitFor({ timeout: 10_000 });
  if ((await recent.count()) !== Number(games)) fail(`${await recent.count()} recent games listed, not ${games}`);
  console.log(`${name}'s page: ${label}, ${games} games listed`);
  // With DUDO_SCREENSHOTS=DIR, the page is left there as rating.png (docs/playing.md).
  if (process.env.DUDO_SCREENSHOTS) await page.screenshot({ path: `${process.env.DUDO_SCREENSHOTS}/rating.png`, fullPage: true });

  await recent.first().focus();
  await page.keyboard.press("Enter");
  const round = page.getByRole("region", { name: "The round" });
  await round.waitFor({ timeout: 10_000 });
  const at = async () => ((await round.locator("nav span").textContent()) ?? "").match(/\((\d+) of (\d+)\)/);
  const total = Number((await at())?.[2] ?? 0);
  let reveals = 0;
  for (let i = 1; i <= total; i++) {
    if (Number((await at())?.[1]) !== i) fail(`the replay is not at round ${i} of ${total}`);
    const every = round.getByRole("heading", { name: /^Every cup/ });
    const said = ((await every.count()) ? await every.textContent() : "")?.match(/(\d+) counted/);
    if (said) {
      const counts = await round.locator(".count").allTextContents();
      const sum = counts.reduce((n, c) => n + Number(c.trim()), 0);
      if (sum !== Number(said[1])) fail(`round ${i}: the cups count ${sum}, the reveal says ${said[1]}`);
      const hidden = await round.locator("svg.die.hidden").count();
      if (hidden) fail(`round ${i}: ${hidden} dice hidden in a replay`);
      reveals += 1;
    }
    // → steps on.
    if (i < total) await page.keyboard.press("ArrowRight");
  }
  if (reveals === 0) fail("the replay showed no reveal");
  if (errors.length) fail(`the page threw: ${errors.join("; ")}`);
  console.log(`replay: ${total} rounds stepped through by keyboard, ${reveals} reveals add up`);
} finally {
  await browser.close();
}
