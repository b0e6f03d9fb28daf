// A person plays a rated game on the ladder from the page: registers a name on /ladder,
// presses "Play rated" in a people's pool, is seated (the pool's built-in bot fills the
// table), plays the game to its end at the table page, and then appears on the pool's board
// with a rating history of their own.
//
// usage: node rated.mjs HOST:PORT POOL NAME
// Prints what it checked; exits non-zero with the reason on the first failure.
import { fail, launch } from "./common.mjs";

const [addr, pool, name] = process.argv.slice(2);
const base = `http://${addr}`;
const started = Date.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await launch();
try {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await page.goto(`${base}/ladder`);
  const board = page.getByRole("region", { name: `Pool ${pool}` });
  await board.waitFor({ timeout: 10_000 });
  await page.getByLabel("A name").fill(name);
  await page.getByRole("button", { name: "Register" }).click();
  await page.getByText(`You play as ${name}`).waitFor({ timeout: 10_000 });
  console.log(`registered ${name} from the ladder page`);
  await board.getByRole("button", { name: `Play rated as ${name}` }).click();
  await page.waitForURL(/\/t\/[^/]+$/, { timeout: 20_000 });
  await page.getByText(`${name} (you)`).waitFor({ timeout: 10_000 });
  console.log(`seated at a rated table: ${page.url()} (${Date.now() - started} ms)`);

  let moves = 0;
  const until = Date.now() + 120_000;
  while (Date.now() < until && !(await page.getByRole("list", { name: "Standings" }).count())) {
    const move = page.getByRole("region", { name: "Your move" });
    if (await move.count()) {
      try {
        const title = (await move.locator("h2").textContent({ timeout: 1_000 })) ?? "";
        if (title.startsWith("Call")) await page.keyboard.press("n");
        else {
          const toBeat = (await page.locator(".to-beat").textContent({ timeout: 1_000 })) ?? "";
          const quantity = Number(toBeat.match(/bid (\d+)/)?.[1] ?? 0);
          const dudo = move.getByRole("button", { name: /^Dudo/ });
          if (quantity >= 2 && (await dudo.count())) await dudo.first().click({ timeout: 1_000 });
          else await move.getByRole("button", { name: /^Bid / }).click({ timeout: 1_000 });
        }
        moves += 1;
      } catch {
        // The prompt moved on as we looked: look again.
      }
    }
    await sleep(100);
  }
  if (!(await page.getByRole("list", { name: "Standings" }).count())) fail(`the rated game did not end (${moves} moves)`);
  console.log(`played the rated game to its end (${moves} moves)`);

  // On the board, a person, with a rating history.
  let found = false;
  for (let i = 0; i < 20 && !found; i++) {
    await page.goto(`${base}/ladder`);
    const row = page.getByRole("region", { name: `Pool ${pool}` }).getByRole("row", { name: new RegExp(name) });
    await page.getByRole("region", { name: `Pool ${pool}` }).waitFor({ timeout: 10_000 });
    found = (await row.count()) > 0 && /\(person\)/.test((await row.first().textContent()) ?? "");
    if (!found) await sleep(500);
  }
  if (!found) fail(`${name} is not on ${pool}'s board as a person`);
  await page.getByRole("link", { name }).first().click();
  await page.getByRole("img", { name: /Rating chart: mu [\d.]+ after 1 games/ }).waitFor({ timeout: 10_000 });
  console.log(`${name} is on ${pool}'s board, a person with a rating after 1 game`);
  console.log(`a person played a rated game from the page: ${Date.now() - started} ms`);
} finally {
  await browser.close();
}
process.exit(0);
