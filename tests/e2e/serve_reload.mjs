// Headless Chromium (Debian's, driven by playwright-core) on a page of
// `generate serve`: an edit of the page's Markdown appears in the open page
// without anyone reloading it (the preview's script does), a broken file
// shows the build error in the page, and fixing it brings the page back.
// Prints how long the edit took to show. Every step is bounded.
//
//   node tests/e2e/serve_reload.mjs PREVIEW_URL CONTENT_DIR
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert, launch, stepper } from "./browser.mjs";

const [preview, contentDir] = process.argv.slice(2);
if (!preview || !contentDir) throw new Error("usage: serve_reload.mjs PREVIEW_URL CONTENT_DIR");
const base = preview.replace(/\/$/, "");
const STEP_MS = 30_000;

const step = stepper("generate serve", STEP_MS);

const browser = await launch();
const errors = [];
const page = await browser.newPage();
page.setDefaultTimeout(20_000);
page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
page.on("pageerror", (e) => errors.push("uncaught: " + e.message));
// Reloads the test itself asks for; the preview's must be the only others.
let loads = 0;
page.on("load", () => { loads += 1; });

const file = join(contentDir, "docs", "data", "_index.md");
const broken = join(contentDir, "docs", "data", "broken-by-the-test.md");
const sentence = `Written while the page was open, ${Date.now()}.`;

try {
  await step("the page loads with the preview's script", async () => {
    await page.goto(base + "/docs/data/");
    assert(await page.locator('script[src="/__generate/reload.js"]').count() === 1, "the reload script is on the page");
    // The script has connected once it has seen the first build number.
    await page.waitForTimeout(500);
    assert(errors.length === 0, "console errors: " + errors.join(" | "));
  });

  await step("an edit appears without a manual reload", async () => {
    const before = loads;
    // The new text can be painted before the load event fires, so wait
    // for both: the event is what proves the page was reloaded.
    const reloaded = page.waitForEvent("load");
    const started = Date.now();
    appendFileSync(file, `\n${sentence}\n`);
    await page.getByText(sentence).waitFor();
    const ms = Date.now() - started;
    await reloaded;
    assert(loads > before, "the preview reloaded the page");
    console.log(`generate serve: the edit was on the open page ${ms} ms after it was saved`);
  });

  await step("a broken file shows the build error in the page", async () => {
    writeFileSync(broken, "+++\ntitle = \"Never closed\"\n");
    await page.locator("#build-error").waitFor();
    const text = await page.locator("#build-error").textContent();
    assert(text.includes("broken-by-the-test.md"), "the error names the file: " + text);
  });

  await step("fixing it brings the page back", async () => {
    rmSync(broken);
    await page.getByText(sentence).waitFor();
    assert(await page.locator("#build-error").count() === 0, "no error left");
    const errs = errors.filter((e) => !e.includes("500"));
    assert(errs.length === 0, "console errors: " + errs.join(" | "));
  });
} finally {
  await browser.close();
}
// The content copy is the caller's; leave the file as the test found it.
writeFileSync(file, readFileSync(file, "utf8").replace(`\n${sentence}\n`, ""));
