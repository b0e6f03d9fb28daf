// Two people in two browsers and a bot play a whole game at a dudo-server; a third browser
// watches. One person's network is cut mid-game and comes back; the other reloads the page;
// every reveal's per-cup counts must add up to its total; both people's stories of the game
// must match line for line.
//
// usage: node game.mjs HOST:PORT [SCREENSHOT_DIR]
// Prints what it checked; exits non-zero with the reason on the first failure.
import { createServer, connect } from "node:net";
import { fail, launch, storyOnceEnded, endsTheGame } from "./common.mjs";

const [addr, shots] = process.argv.slice(2);
const base = `http://${addr}`;
const started = Date.now();

/** A TCP proxy to the server for Ben's browser: `cut()` drops every connection through it and
 * refuses new ones until `restore()`, as a Wi-Fi change would. */
async function proxy(target) {
  const [host, port] = target.split(":");
  const open = new Set();
  let down = false;
  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = connect(Number(port), host);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    addr: `127.0.0.1:${server.address().port}`,
    cut() {
      down = true;
      for (const s of open) s.destroy();
    },
    restore() {
      down = false;
    },
    close() {
      server.close();
    },
  };
}

const browser = await launch();
try {
  // Ana sets up the table.
  const anaContext = await browser.newContext({ viewport: { width: 900, height: 1000 } });
  const ana = await anaContext.newPage();
  const opened = Date.now();
  await ana.goto(`${base}/`);
  await ana.getByLabel("Rules").selectOption("fibbing");
  await ana.getByLabel("Your name").fill("Ana");
  await ana.getByLabel("Seats").fill("3");
  await ana.getByRole("button", { name: "Create the table" }).click();
  await ana.waitForURL(/\/t\/[A-Z0-9]+$/, { timeout: 10_000 });
  const link = ana.url();
  console.log(`table made: ${link} (${Date.now() - opened} ms from opening the page)`);

  // Ben opens the link cold, in a browser of his own (a phone's screen), through a network
  // that will drop, and sits down.
  const net = await proxy(addr);
  const benContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const ben = await benContext.newPage();
  const cold = Date.now();
  await ben.goto(link.replace(addr, net.addr));
  await ben.getByLabel("Your name").waitFor({ timeout: 10_000 });
  console.log(`join link opened cold: the table in ${Date.now() - cold} ms`);
  await ben.getByLabel("Your name").fill("Ben");
  await ben.getByRole("button", { name: "Sit down" }).click();
  await ben.getByText("Ben (you)").waitFor({ timeout: 10_000 });

  // Cat only watches.
  const cat = await (await browser.newContext()).newPage();
  await cat.goto(link);

  // Ana adds a bot and starts.
  await ana.getByText("Ben", { exact: true }).waitFor({ timeout: 10_000 });
  await ana.getByRole("button", { name: "Add a bot" }).click();
  await ana.getByRole("button", { name: "Start the game" }).click();
  await ana.getByRole("region", { name: "The table" }).waitFor({ timeout: 10_000 });
  if (shots) await ana.screenshot({ path: `${shots}/table.png`, fullPage: true });

  const players = [
    { name: "Ana", page: ana },
    { name: "Ben", page: ben },
  ];
  let moves = 0;
  let reveals = 0;
  let cut = false;
  let reloaded = false;
  let keyed = 0;
  let shotReveal = !shots;
  let shotResults = !shots;
  const deadline = Date.now() + Number(process.env.DUDO_GAME_SECONDS ?? 180) * 1000;
  while (Date.now() < deadline) {
    let over = 0;
    for (const { name, page } of players) {
      if (await page.getByRole("list", { name: "Standings" }).count()) {
        over += 1;
        continue;
      }
      // Every reveal on screen adds up: the cups' counts make the total the server sent.
      const reveal = page.getByRole("region", { name: "The reveal" });
      if (await reveal.count()) {
        // Read at once: bots may open the next round (and its reveal) between two reads.
        const { heading, counts } = await reveal.evaluate((el) => ({
          heading: el.querySelector("h2")?.textContent ?? "",
          counts: [...el.querySelectorAll(".count")].map((c) => c.textContent ?? ""),
        }));
        const total = heading.match(/(\d+) counted/);
        if (total) {
          const sum = counts.reduce((s, c) => s + Number(c.trim()), 0);
          if (sum !== Number(total[1])) fail(`${name}'s reveal: the cups count ${sum}, the total says ${total[1]}`);
          reveals += 1;
          if (!shotReveal && name === "Ana") {
            await page.screenshot({ path: `${shots}/reveal.png`, fullPage: true });
            shotReveal = true;
          }
        }
      }
      // The results table as a phone shows it.
      if (!shotResults && name === "Ben" && (await page.getByRole("region", { name: "Results table" }).count())) {
        await page.screenshot({ path: `${shots}/results.png`, fullPage: true });
        shotResults = true;
      }
      const move = page.getByRole("region", { name: "Your move" });
      if (!(await move.count())) continue;
      const title = (await move.locator("h2").textContent()) ?? "";
      try {
        if (title.startsWith("Call")) {
          await move.getByRole("button", { name: "No call" }).click({ timeout: 2_000 });
        } else {
          const toBeat = (await page.locator(".to-beat").textContent()) ?? "";
          const quantity = Number(toBeat.match(/bid (\d+)/)?.[1] ?? 0);
          const dudo = move.getByRole("button", { name: /^Dudo/ });
          if (quantity >= 3 && (await dudo.count())) await dudo.first().click({ timeout: 2_000 });
          else if (name === "Ben" && (await page.evaluate(() => document.activeElement?.classList.contains("quantity")))) {
            // Ben plays by keyboard: his move's quantity has the focus, Enter bids.
            await page.keyboard.press("Enter");
            keyed += 1;
          } else await move.getByRole("button", { name: /^Bid / }).click({ timeout: 2_000 });
        }
        moves += 1;
      } catch {
        // The prompt moved on while we clicked (a call window closed): look again.
      }
      // Ben's network drops mid-game and comes back.
      if (moves === 6 && !cut) {
        cut = true;
        net.cut();
        await ben.getByText("reconnecting…").waitFor({ timeout: 15_000 });
        await new Promise((r) => setTimeout(r, 1_500));
        net.restore();
        await ben.getByText("connected", { exact: true }).waitFor({ timeout: 15_000 });
        console.log("Ben's network was cut and came back");
      }
    }
    // Ana reloads her page mid-game: back at her seat, her story resumed, not restarted.
    if (moves >= 10 && !reloaded) {
      reloaded = true;
      const before = await ana.getByRole("region", { name: "What happened" }).locator("li").count();
      await ana.reload();
      await ana.getByText("Ana (you)").waitFor({ timeout: 10_000 });
      const after = await ana.getByRole("region", { name: "What happened" }).locator("li").count();
      if (after < before) fail(`Ana's story lost lines over a reload: ${before} before, ${after} after`);
      console.log(`Ana reloaded her page: back at her seat with her story (${after} lines)`);
    }
    if (over === players.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (Date.now() >= deadline) {
    for (const { name, page } of players) {
      if (shots) await page.screenshot({ path: `${shots}/stuck-${name}.png`, fullPage: true });
      console.error(`${name}: ${(await page.locator("main").innerText()).slice(0, 1500)}`);
    }
    fail(`the game did not end in 180 s (${moves} moves)`);
  }
  if (!cut) fail("the game ended before Ben's network could be cut");
  if (!reloaded) fail("the game ended before Ana could reload her page");
  if (keyed === 0) fail("Ben's bid never had the focus when his move came");
  if (reveals === 0) fail("no reveal was seen");

  // Both people saw the same story, with nothing lost or repeated across Ben's cut.
  const [anaWhole, benWhole, catWhole] = [await storyOnceEnded(ana), await storyOnceEnded(ben), await storyOnceEnded(cat)];
  // The table's news before the game says "you" to whom it is about; the game's story is one.
  if (!anaWhole.includes("You sat down at seat 0.") || !benWhole.includes("Ana sat down at seat 0.")) {
    fail(`the arrivals are not each one's own:\nAna: ${anaWhole.slice(0, 3)}\nBen: ${benWhole.slice(0, 3)}`);
  }
  if (!benWhole.includes("You sat down at seat 1.") || !catWhole.includes("Ben sat down at seat 1.")) {
    fail(`Ben's arrival is not his own: ${benWhole.slice(0, 3)}`);
  }
  const game = (story) => story.slice(Math.max(0, story.findIndex((l) => l.startsWith("A game for"))));
  const [anaStory, benStory, catStory] = [game(anaWhole), game(benWhole), game(catWhole)];
  if (anaStory.join("\n") !== benStory.join("\n")) {
    fail(`the stories differ:\nAna:\n${anaStory.join("\n")}\nBen:\n${benStory.join("\n")}`);
  }
  if (catStory.join("\n") !== anaStory.join("\n")) fail("the spectator's story differs from the players'");
  if (!endsTheGame(anaStory.at(-1))) fail(`the story does not end with the game: ${anaStory.at(-1)}`);
  console.log(
    `a whole game: ${moves} moves by the two people (${keyed} bids by keyboard), ${reveals} reveals checked, ${anaStory.length} lines alike in three browsers, ${Date.now() - started} ms`,
  );
} finally {
  await browser.close();
}
// The proxy's listener and its sockets would keep Node running.
process.exit(0);
