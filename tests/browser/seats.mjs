// Measures what browser seats cost the server: opens N browser contexts, each sitting at a
// table of its own through the page (create, then the stream opens), and prints the server's
// resident memory before and after, and the page's weight as served.
//
// usage: node seats.mjs HOST:PORT SERVER_PID N
import { readFileSync } from "node:fs";
import { launch } from "./common.mjs";

const [addr, pid, n] = process.argv.slice(2);
const rss = () => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
const browser = await launch();
const weights = [];
const first = await (await browser.newContext()).newPage();
first.on("response", async (r) => {
  if (r.url().includes("/assets/") && !weights.some(([f]) => r.url().endsWith(f))) weights.push([r.url().split("/").pop(), Number((await r.headerValue("content-length")) ?? 0)]);
});
await first.goto(`http://${addr}/`);
await first.getByLabel("Rules").selectOption("fibbing");
const before = rss();
const opened = [];
for (let i = 0; i < Number(n); i++) {
  const page = i === 0 ? first : await (await browser.newContext()).newPage();
  if (i > 0) await page.goto(`http://${addr}/`);
  await page.getByLabel("Rules").selectOption("fibbing");
  await page.getByLabel("Your name").fill(`P${i}`);
  const t = Date.now();
  await page.getByRole("button", { name: "Create the table" }).click();
  await page.getByText("connected", { exact: true }).waitFor({ timeout: 15_000 });
  opened.push(Date.now() - t);
}
await new Promise((r) => setTimeout(r, 2000));
const after = rss();
opened.sort((a, b) => a - b);
console.log(`page weight as served (gzip): ${weights.map(([f, b]) => `${f} ${b} B`).join(", ")}`);
console.log(`create -> table on screen and its stream open: median ${opened[opened.length >> 1]} ms, max ${opened.at(-1)} ms`);
console.log(`server RSS: ${before} KiB before, ${after} KiB with ${n} browser seats: ${((after - before) / Number(n)).toFixed(0)} KiB a seat`);
await browser.close();
process.exit(0);
