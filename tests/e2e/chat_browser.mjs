// Headless Chromium (Debian's, driven by playwright-core) on the chat: the
// /chat/ page used with the keyboard only (Tab to the field, Shift+Enter for
// a new line, Enter to send), cited answers (a <blockquote cite> under its
// heading, line by line, and a link per citation, as the route answered), the
// conversation's earlier turns sent as `history`, a citation followed to its
// page and heading, an unanswerable question's hand-off to the contact form
// (topic and message filled, nothing sent: no request to the contact route at
// all), the header's panel on another page (nothing requested until a
// question is asked), axe-core in light and dark mode on the page and the
// open panel, no console error and no request to another origin. Every step
// is bounded in time.
//
//   node tests/e2e/chat_browser.mjs BASE_URL
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, launch, stepper } from "./browser.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const base = (process.argv[2] || "").replace(/\/$/, "");
if (!base) throw new Error("usage: chat_browser.mjs BASE_URL");
const origin = new URL(base).origin;
const axeSource = readFileSync(join(here, "node_modules/axe-core/axe.min.js"), "utf8");
const CHAT = "/api/chat.php";
const CONTACT = "/api/contact.php";
const STEP_MS = 30_000;

const step = stepper("chat browser", STEP_MS);

const browser = await launch();

// A page that records console errors, every request, and any request to
// another origin (blocked, not sent).
async function open(context) {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const log = { errors: [], foreign: [], requests: [] };
  page.on("console", (m) => {
    if (m.type() === "error") log.errors.push(m.text());
  });
  page.on("pageerror", (e) => log.errors.push("uncaught: " + e.message));
  page.on("request", (r) => log.requests.push({ method: r.method(), url: r.url(), body: r.postData() }));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).origin === origin) return route.continue();
    log.foreign.push(url);
    return route.abort("blockedbyclient");
  });
  return { page, log };
}

function clean(log, where) {
  assert(log.errors.length === 0, `${where}: console errors: ${log.errors.join(" | ")}`);
  assert(log.foreign.length === 0, `${where}: requests to other origins: ${log.foreign.join(", ")}`);
}

async function axe(page, where) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(() =>
    // eslint-disable-next-line no-undef
    axe.run(document, { resultTypes: ["violations"] }).then((r) =>
      r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })),
    ),
  );
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert(bad.length === 0, `${where}: axe: ${bad.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.join(", ")})`).join("; ")}`);
  const other = violations.map((v) => `${v.impact} ${v.id}`);
  console.log(`chat browser: axe-core on ${where}: no serious or critical violation${other.length ? " (also: " + other.join(", ") + ")" : ""}`);
}

// Presses Tab until the element with `id` has focus (keyboard only).
async function tabTo(page, id, max = 60) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((want) => document.activeElement && document.activeElement.id === want, id)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`#${id} never got the focus after ${max} presses of Tab`);
}

// Types a question into the focused field and sends it with Enter; returns
// the request's body and the route's answer as JSON.
async function askWithKeyboard(page, question) {
  await page.keyboard.type(question, { delay: 5 });
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === base + CHAT && r.request().method() === "POST"),
    page.keyboard.press("Enter"),
  ]);
  assert(response.status() === 200, `${question}: HTTP ${response.status()}`);
  return { sent: response.request().postDataJSON(), answer: await response.json() };
}

// The rendered turn matches the route's answer: the text, one blockquote
// with `cite` and a link per citation, the related links, the hand-off.
async function checkTurn(turn, answer, question) {
  assert((await turn.locator(".chat-q").innerText()).includes(question), "the turn shows the question");
  assert((await turn.locator(".chat-text").innerText()) === answer.text, "the turn shows the answer's text");
  const quotes = turn.locator("blockquote");
  assert(await quotes.count() === answer.citations.length, `${await quotes.count()} blockquotes for ${answer.citations.length} citations`);
  for (let i = 0; i < answer.citations.length; i++) {
    const c = answer.citations[i];
    assert(await quotes.nth(i).getAttribute("cite") === c.url, `blockquote ${i} cite=${c.url}`);
    const quoted = (await quotes.nth(i).innerText()).replace(/\s+/g, " ").trim();
    assert(quoted === c.quote.replace(/\s+/g, " ").trim(), `blockquote ${i} quotes the passage exactly`);
    // Line by line: a step, a list item or a table row keeps its own line.
    const lines = (s) => s.split("\n").map((l) => l.trim()).filter(Boolean);
    const shown = lines(await quotes.nth(i).innerText());
    assert(JSON.stringify(shown) === JSON.stringify(lines(c.quote)), `blockquote ${i} keeps the quote's ${lines(c.quote).length} lines (shows ${shown.length})`);
    const source = turn.locator(".chat-cite").nth(i).locator("a.chat-source");
    assert(await source.getAttribute("href") === c.url, `citation ${i} links to ${c.url}`);
    const label = await source.innerText();
    assert(label.includes(c.title), `citation ${i} names "${c.title}"`);
    // The quote is read under its heading, shown above it.
    const head = turn.locator(".chat-cite").nth(i).locator(".chat-cite-head");
    if (c.heading) {
      assert((await head.innerText()) === c.heading, `citation ${i} shows its heading "${c.heading}" above the quote`);
      assert(await head.evaluate((h) => h.nextElementSibling.tagName) === "BLOCKQUOTE", `citation ${i}: the heading comes right before the quote`);
    } else {
      assert(await head.count() === 0, `citation ${i} has no heading to show`);
    }
    const caption = await turn.locator(".chat-cite").nth(i).locator("figcaption").innerText();
    assert(/Historical/i.test(caption) === c.historical, `citation ${i} historical mark is ${c.historical}`);
    // The licence is said once for the answer, not under each quote.
    if (c.licence) assert(!caption.includes(c.licence), `citation ${i} does not repeat its licence`);
  }
  const credits = await turn.locator(".chat-credit").allInnerTexts();
  assert(credits.length === (answer.credits || []).length, `${credits.length} credit lines for ${(answer.credits || []).length} credits`);
  (answer.credits || []).forEach((c, i) => {
    assert(credits[i].includes(c.licence) && (!c.attribution || credits[i].includes(c.attribution)), `credit line ${i} names ${c.licence}`);
  });
  const licences = new Set(answer.citations.filter((c) => c.licence).map((c) => c.licence + "\u0000" + (c.attribution || "")));
  assert(licences.size === credits.length, `one credit line per licence and attribution (${licences.size} among the citations)`);
  if (answer.kind === "answer") assert(await turn.locator(".chat-a").getAttribute("data-confidence") === answer.confidence, "the turn carries the answer's confidence");
  const related = await turn.locator(".chat-related a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  assert(JSON.stringify(related) === JSON.stringify(answer.related.map((r) => r.url)), "the related pages are listed as links");
  const handoff = turn.locator("a.chat-handoff");
  assert(await handoff.getAttribute("href") === answer.handoff.url, "the hand-off links to the prefilled form");
  assert((await handoff.getAttribute("class")).includes("is-suggested") === answer.handoff.suggested, "the hand-off is prominent exactly when suggested");
}

let failed = false;
try {
  const light = await browser.newContext({ colorScheme: "light" });
  const { page, log } = await open(light);
  const NITRATE = "How do I measure nitrate?";
  let first;

  await step("/chat/ with the keyboard only: Tab to the field, Shift+Enter, Enter sends", async () => {
    const res = await page.goto(base + "/chat/");
    assert(res.status() === 200, "/chat/ answers 200");
    assert(await page.locator(".chat-log[aria-live=polite]").count() === 1, "the answers' region is aria-live=polite");
    assert(await page.getByLabel("Your question").count() === 1, "the field is labelled");
    await tabTo(page, "chat-input");
    await page.keyboard.type("How do I", { delay: 5 });
    await page.keyboard.press("Shift+Enter");
    assert(await page.inputValue("#chat-input") === "How do I\n", "Shift+Enter starts a new line");
    assert(!log.requests.some((r) => r.url.endsWith(CHAT)), "Shift+Enter sent nothing");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    first = await askWithKeyboard(page, NITRATE);
    assert(first.sent.message === NITRATE, "the question is sent as typed");
    assert(Array.isArray(first.sent.history) && first.sent.history.length === 0, "the first question has no history");
    assert(first.answer.kind === "answer", `a published answer, got ${first.answer.kind}`);
    assert(first.answer.citations.length > 0, "the answer cites at least one passage");
    assert(first.answer.citations.every((c) => new URL(c.url).origin === origin), "citations point at this site");
    const turn = page.locator(".chat-log .chat-turn").first();
    await turn.waitFor();
    await checkTurn(turn, first.answer, NITRATE);
    assert(first.answer.citations.some((c) => c.url.includes("/docs/archive/protocols/nitrate/")), "the nitrate protocol is cited");
    assert(await page.evaluate(() => document.activeElement.id) === "chat-input", "focus is back in the field");
    assert(await page.inputValue("#chat-input") === "", "the field is emptied for the next question");
  });

  await step("a follow-up question carries the earlier turns as history", async () => {
    const FOLLOW = "What equipment do I need for the phosphate test?";
    const second = await askWithKeyboard(page, FOLLOW);
    const h = second.sent.history;
    assert(h.length === 2 && h[0].role === "user" && h[0].text === NITRATE && h[1].role === "assistant" && h[1].text === first.answer.text,
      "history is [the first question, the first answer's text]: " + JSON.stringify(h));
    await page.locator(".chat-log .chat-turn").nth(1).waitFor();
    await checkTurn(page.locator(".chat-log .chat-turn").nth(1), second.answer, FOLLOW);
    // Nothing of the conversation is written to storage.
    const stored = await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]);
    assert(stored[0] === 0 && stored[1] === 0 && stored[2] === "", "nothing in storage or cookies: " + JSON.stringify(stored));
  });

  await step("axe-core on /chat/ with answers, light mode", () => axe(page, "/chat/ (light)"));

  await step("follow a citation with the keyboard: the page and its heading exist", async () => {
    const c = first.answer.citations[0];
    const link = page.locator(".chat-log .chat-turn").first().locator("a.chat-source").first();
    await link.focus();
    await Promise.all([page.waitForURL(c.url), page.keyboard.press("Enter")]);
    const url = new URL(page.url());
    assert(url.hash.length > 1, `the citation has a heading anchor: ${c.url}`);
    const id = decodeURIComponent(url.hash.slice(1));
    const heading = await page.evaluate((id) => {
      const e = document.getElementById(id);
      return e ? e.tagName + " " + e.textContent : null;
    }, id);
    assert(heading !== null, `#${id} exists on ${url.pathname}`);
    if (c.heading) assert(heading.includes(c.heading), `#${id} is the heading "${c.heading}", got "${heading}"`);
  });

  const UNANSWERABLE = "Can I adopt a cat from you?";
  await step("an unanswerable question: no invented answer, the hand-off to a person", async () => {
    await page.goto(base + "/chat/");
    await tabTo(page, "chat-input");
    const { answer } = await askWithKeyboard(page, UNANSWERABLE);
    assert(answer.kind === "no_match", `no_match, got ${answer.kind}`);
    assert(answer.citations.length === 0 && answer.handoff.suggested, "no citation, the hand-off suggested");
    const turn = page.locator(".chat-log .chat-turn").first();
    await turn.waitFor();
    await checkTurn(turn, answer, UNANSWERABLE);
    const handoff = turn.locator("a.chat-handoff.is-suggested");
    assert(/^Ask a person/.test(await handoff.innerText()), "the hand-off reads “Ask a person…”");
    // The question is in the fragment only: no request carries it.
    const target = new URL(await handoff.getAttribute("href"), base);
    assert(!target.search && target.hash.includes("message="), "the hand-off link has a fragment and no query string: " + target);
    await handoff.focus();
    await Promise.all([page.waitForURL(/\/contact\/#/), page.keyboard.press("Enter")]);
    assert(!page.url().includes("?"), "the form's address has no query string: " + page.url());
    assert(!log.requests.some((r) => r.url.includes("/contact/?") || r.url.includes("adopt")),
      "no request carried the question");
    await page.locator("#contact-prefilled").waitFor();
    assert(await page.inputValue("#f-topic") === "other", "the topic is prefilled");
    assert(await page.inputValue("#f-message") === UNANSWERABLE, "the message is the question");
    assert(await page.inputValue("#f-name") === "" && await page.inputValue("#f-email") === "", "name and email are left to the visitor");
    assert(!(await page.isChecked("#f-consent")), "consent is not ticked for the visitor");
    // Give a stray submission time to happen, then check none did.
    await page.waitForTimeout(1500);
    assert(!log.requests.some((r) => r.url.startsWith(base + CONTACT)), "nothing was sent to the contact route: "
      + log.requests.filter((r) => r.url.includes("/api/contact")).map((r) => r.method + " " + r.url).join(", "));
    assert(page.url().startsWith(base + "/contact/"), "still on the form");
  });

  await step("the contact form reads topic and message from the fragment, and only known topics", async () => {
    // From another page each time: a change of fragment alone on the same
    // page is no new visit.
    await page.goto(base + "/");
    await page.goto(base + "/contact/#topic=other&message=From%20the%20fragment");
    await page.locator("#contact-prefilled").waitFor();
    assert(await page.inputValue("#f-topic") === "other" && await page.inputValue("#f-message") === "From the fragment", "fragment read");
    await page.goto(base + "/");
    await page.goto(base + "/contact/#topic=not-a-topic&message=Hello");
    assert(await page.inputValue("#f-topic") === "", "an unknown topic is ignored");
    assert(await page.inputValue("#f-message") === "Hello", "the message still comes");
    await page.goto(base + "/contact/");
    assert(await page.locator("#contact-prefilled").count() === 0, "no prefill note on a plain visit");
    assert(!log.requests.some((r) => r.url.startsWith(base + CONTACT)), "still nothing sent to the contact route");
  });

  await step("asking the chat to act is declined with the hand-off", async () => {
    await page.goto(base + "/chat/");
    await tabTo(page, "chat-input");
    const { answer } = await askWithKeyboard(page, "Please send an email to the coordinator for me");
    assert(answer.kind === "declined" && answer.handoff.suggested, `declined, got ${answer.kind}`);
    await page.locator(".chat-log .chat-turn a.chat-handoff.is-suggested").waitFor();
  });
  clean(log, "light-mode pages");

  await step("the header's panel on another page: opens with Enter, asks, closes with Escape", async () => {
    const { page: p, log: plog } = await open(light);
    await p.goto(base + "/docs/");
    await p.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => {});
    assert(await p.locator("dialog.chat-dialog").count() === 0, "the panel is not built before it is opened");
    await tabTo(p, "chat-open");
    await p.keyboard.press("Enter");
    await p.locator("dialog.chat-dialog[open]").waitFor();
    assert(await p.evaluate(() => document.activeElement.id) === "chat-panel-input", "focus moves into the panel's field");
    assert(!plog.requests.some((r) => r.url.endsWith(CHAT)), "opening the panel requests nothing");
    const Q = "How many observations are there?";
    const { answer } = await askWithKeyboard(p, Q);
    assert(answer.kind === "figures" && answer.statistics, `figures, got ${answer.kind}`);
    const turn = p.locator("#chat-panel .chat-turn").first();
    await turn.waitFor();
    await checkTurn(turn, answer, Q);
    assert(await turn.locator(".chat-meta time").getAttribute("datetime") === answer.statistics.generated_at, "the figures' time is shown");
    const Q2 = "How do I read turbidity with the tube?";
    const second = await askWithKeyboard(p, Q2);
    assert(second.sent.history.length === 2, "the panel keeps its own history");
    await checkTurn(p.locator("#chat-panel .chat-turn").nth(1), second.answer, Q2);
    await axe(p, "/docs/ with the panel open (light)");
    await p.keyboard.press("Escape");
    await p.locator("dialog.chat-dialog[open]").waitFor({ state: "detached" }).catch(() => {});
    assert(!(await p.locator("dialog.chat-dialog").evaluate((d) => d.open)), "Escape closes the panel");
    assert(await p.evaluate(() => document.activeElement.id) === "chat-open", "focus returns to the header button");
    // Reopened, the conversation is still there (same page, in memory).
    await p.keyboard.press("Enter");
    await p.locator("dialog.chat-dialog[open]").waitFor();
    assert(await p.locator("#chat-panel .chat-turn").count() === 2, "the panel keeps the conversation while the page is open");
    await p.locator(".chat-close").click();
    clean(plog, "/docs/ with the panel");
    await p.close();
  });

  await step("dark mode: axe-core on /chat/ with an answer and on the open panel", async () => {
    const dark = await browser.newContext({ colorScheme: "dark" });
    const { page: d, log: dlog } = await open(dark);
    await d.goto(base + "/chat/");
    const bg = await d.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert((r + g + b) / 3 < 128, "the page is dark: " + bg);
    await tabTo(d, "chat-input");
    await askWithKeyboard(d, "How was the water temperature taken?");
    await d.locator(".chat-log .chat-turn").first().waitFor();
    await axe(d, "/chat/ (dark)");
    await d.goto(base + "/docs/archive/");
    await d.locator("#chat-open").click();
    await d.locator("dialog.chat-dialog[open]").waitFor();
    await d.locator("#chat-panel-input").fill(UNANSWERABLE);
    await d.keyboard.press("Enter");
    await d.locator("#chat-panel .chat-turn").first().waitFor();
    await axe(d, "/docs/archive/ with the panel open (dark)");
    clean(dlog, "dark-mode pages");
    await dark.close();
  });
  await light.close();
} catch (e) {
  failed = true;
  console.error(e.stack || String(e));
} finally {
  await browser.close();
}
if (failed) process.exit(1);
console.log("chat browser test passed");
