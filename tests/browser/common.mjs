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
