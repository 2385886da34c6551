// Subresource Integrity in headless Chromium: SITE serves a copy of dist/
// in which the statistics script was changed after the build; the browser
// must refuse it (a console error naming integrity) and the page must stay
// without live figures, while the untouched scripts still run.
//
//   node tests/e2e/sri_tamper.mjs SITE TAMPERED_PATH
import { assert, launch } from "./browser.mjs";

const [site, tampered] = [process.argv[2].replace(/\/$/, ""), process.argv[3]];
if (!site || !tampered) throw new Error("usage: sri_tamper.mjs SITE TAMPERED_PATH");

const browser = await launch();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(site + "/docs/data/statistics/");
  await page.waitForLoadState("load");
  await page.waitForTimeout(2_000);
  const refused = errors.filter((e) => e.includes("integrity") && e.includes(tampered));
  assert(refused.length === 1, `the tampered ${tampered} is refused: ${errors.join(" | ")}`);
  assert(await page.locator("#stats dd[data-stat]").count() === 0, "no live figures from a refused script");
  // The untouched scripts ran: the theme script sets the document's theme.
  assert(await page.locator("#chat-open").isVisible(), "the page's other scripts still run");
  console.log(`sri: ${tampered} changed after the build is refused; the other scripts run`);
} finally {
  await browser.close();
}
