// What the browser tests of tests/e2e share: Debian's Chromium driven by
// playwright-core (no browser download), an assertion, and steps bounded in
// time.
import { chromium } from "playwright-core";

// Headless Chromium: Debian's (or $CHROMIUM), with nothing running in the
// background that would reach the network.
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--no-first-run"],
    timeout: 30_000,
  });
}

export function assert(ok, message) {
  if (!ok) throw new Error("assertion failed: " + message);
}

// The `step` of one script: `await step(name, fn, ms = defaultMs)` runs `fn`,
// fails it when it takes longer than `ms`, and logs "LABEL: name (N ms)".
export function stepper(label, defaultMs) {
  return async function step(name, fn, ms = defaultMs) {
    let timer;
    const started = Date.now();
    try {
      await Promise.race([
        fn(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`step "${name}" took longer than ${ms} ms`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    console.log(`${label}: ${name} (${Date.now() - started} ms)`);
  };
}
