// Headless Chromium (Debian's, driven by playwright-core) on the contact
// form: fills it with the keyboard-accessible labels, lets the widget solve
// the challenge in its Web Worker, submits and reads the reference on the
// thank-you page; shows per-field errors; and checks that the same form
// served from a foreign origin is refused (403 forbidden_origin).
//
//   node tests/e2e/contact_browser.mjs BASE_URL
import http from "node:http";
import { assert, launch } from "./browser.mjs";

const base = (process.argv[2] || "").replace(/\/$/, "");
if (!base) throw new Error("usage: contact_browser.mjs BASE_URL");

const browser = await launch();
let foreign;
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const consoleErrors = [];
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  // A refused submission's 4xx is logged by Chromium as a failed resource;
  // that is expected. Anything else on the console is a script fault.
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) consoleErrors.push(m.text());
  });

  // Per-field errors: an empty form gets a focused summary and aria-invalid fields.
  await page.goto(base + "/contact/");
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await page.locator("#contact-errors:not([hidden])").waitFor();
  const focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
  assert(focused === "contact-errors", "the error summary has focus, not " + focused);
  assert(await page.getAttribute("#f-name", "aria-invalid") === "true", "name is aria-invalid");
  assert(await page.getAttribute("#f-consent", "aria-invalid") === "true", "consent is aria-invalid");
  assert((await page.textContent("#f-email-error")).length > 5, "email has its message");
  console.log("browser: empty form → per-field errors and a focused summary");

  // A real enquiry.
  await page.getByLabel("Name").fill("Browser Visitor");
  await page.getByLabel("Email").fill("browser@visitor.example");
  await page.getByLabel("Organisation (optional)").fill("Test School");
  await page.getByLabel("Topic").selectOption("other");
  await page.getByLabel("Message").fill("Hello from a headless browser.\nSecond line.");
  await page.getByLabel("I agree to be contacted").check();
  await Promise.all([
    page.waitForURL(/\/contact\/thanks\/\?reference=ENQ-/, { timeout: 60_000 }),
    page.getByRole("button", { name: "Send enquiry" }).click(),
  ]);
  await page.locator("#contact-receipt:not([hidden])").waitFor();
  const reference = (await page.textContent("#contact-reference")).trim();
  assert(/^ENQ-[0-9A-Z]{6}-[0-9A-Z]{6}$/.test(reference), "reference shown: " + reference);
  assert(page.url().endsWith(reference), "the URL carries the same reference");
  // A hostile reference in the query is never rendered.
  await page.goto(base + "/contact/thanks/?reference=%3Cimg%20src%3Dx%3E");
  assert(await page.isHidden("#contact-receipt"), "a malformed reference is not shown");
  assert(consoleErrors.length === 0, "no script errors: " + consoleErrors.join("; "));
  console.log("browser: solved the challenge in the worker and got reference " + reference);

  // The same form from another origin posts cross-origin and is refused.
  const html = (await (await fetch(base + "/contact/")).text())
    .replace('action="/api/contact.php"', `action="${base}/api/contact.php"`)
    .replace(/<script[^>]*><\/script>/g, "")
    // Another site's page does not carry this site's policy.
    .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "")
    .replace(/(href|src)="\//g, `$1="${base}/`);
  foreign = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise((ok) => foreign.listen(0, "127.0.0.1", ok));
  const other = `http://127.0.0.1:${foreign.address().port}`;
  const evil = await browser.newPage();
  await evil.goto(other + "/");
  await evil.fill("#f-name", "Mallory");
  await evil.fill("#f-email", "mallory@evil.example");
  await evil.selectOption("#f-topic", "other");
  await evil.fill("#f-message", "Cross-origin post.");
  await evil.check("#f-consent");
  const [response] = await Promise.all([
    evil.waitForResponse((r) => r.url() === base + "/api/contact.php"),
    evil.click("#contact-submit"),
  ]);
  assert(response.status() === 403, "foreign origin refused, got " + response.status());
  const problem = await response.json();
  assert(problem.code === "forbidden_origin", "code " + problem.code);
  const headers = response.headers();
  assert(!("access-control-allow-origin" in headers), "no CORS grant to a foreign origin");
  assert((headers.vary || "").toLowerCase().includes("origin"), "Vary: Origin");
  console.log(`browser: the form served from ${other} was refused with 403 forbidden_origin`);
} finally {
  if (foreign) foreign.close();
  await browser.close();
}
console.log("contact browser test passed");
