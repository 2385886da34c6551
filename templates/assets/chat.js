// The chat: a visitor's question goes to the chat route (the container's
// data-src) with the last turns of this conversation, and the answer is shown
// in the log (an ARIA live region): the service's sentence (which says how
// sure it is), each quoted passage as a <blockquote> under its section's
// heading, with a link to its page at that heading and a "historical" mark
// for archive material, one line of licence and attribution for the quoted
// passages that need it, related pages, and the hand-off to the contact form
// (prefilled; the visitor reviews and sends it there). The conversation lives
// in this page's memory only: nothing is written to storage.
//
// Two places use it: the /chat/ page (#chat) and a panel (<dialog>) opened
// from the header's #chat-open button on every other page. The panel is
// built on first opening; nothing is requested until a question is asked.
"use strict";

(function () {
  // The interface words in the page's language (words.{code}.js).
  const say = window.uiWord;
  const HISTORY_TURNS = 10; // the route reads at most 10 earlier turns
  const TURN_CHARS = 1000; // … of at most 1,000 characters each
  const TIMEOUT_MS = 15000;
  const lang = document.documentElement.lang || undefined;
  const when = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // Links from an answer are followed only when they are web addresses.
  function safeUrl(u) {
    try {
      const url = new URL(String(u), location.href);
      return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function link(href, text, cls) {
    const url = safeUrl(href);
    if (!url) return el("span", cls, text);
    const a = el("a", cls, text);
    a.href = url;
    return a;
  }

  function citationView(c) {
    const fig = el("figure", "chat-cite");
    // The section the quote stands under comes first: a list item or a
    // table row is read under its heading ("Agents must not", "Equipment").
    if (c.heading) fig.appendChild(el("p", "chat-cite-head", c.heading));
    const quote = el("blockquote");
    const url = safeUrl(c.url);
    if (url) quote.cite = url;
    for (const para of String(c.quote || "").split(/\n{2,}/)) quote.appendChild(el("p", null, para));
    fig.appendChild(quote);
    const cap = el("figcaption");
    if (c.historical) {
      cap.appendChild(el("strong", "chat-historical", say("chat.historical")));
      cap.appendChild(document.createTextNode(" "));
    }
    cap.appendChild(document.createTextNode(say("chat.from")));
    cap.appendChild(link(c.url, c.title, "chat-source"));
    if (c.historical) cap.appendChild(document.createTextNode(say("chat.archive_note")));
    fig.appendChild(cap);
    return fig;
  }

  function answerView(question, a) {
    const turn = el("article", "chat-turn");
    const q = el("p", "chat-q");
    q.appendChild(el("span", "chat-who", say("chat.you_asked")));
    q.appendChild(document.createTextNode(question));
    turn.appendChild(q);
    const body = el("div", "chat-a chat-" + String(a.kind || "answer").replace(/[^a-z_]/g, ""));
    body.appendChild(el("p", "chat-text", a.text));
    if (a.statistics && a.statistics.generated_at) {
      const meta = el("p", "chat-meta");
      const time = el("time");
      time.dateTime = a.statistics.generated_at;
      const d = new Date(a.statistics.generated_at);
      time.textContent = isNaN(d) ? a.statistics.generated_at : when.format(d);
      meta.appendChild(document.createTextNode(say("chat.figures_computed")));
      meta.appendChild(time);
      meta.appendChild(document.createTextNode(a.statistics.stale ? say("chat.stale") : "."));
      body.appendChild(meta);
    }
    if (a.confidence) body.setAttribute("data-confidence", String(a.confidence));
    for (const c of a.citations || []) body.appendChild(citationView(c));
    for (const credit of a.credits || []) {
      const line = say("chat.quoted_under", { licence: credit.licence }) + (credit.attribution ? " · " + credit.attribution : "");
      body.appendChild(el("p", "chat-credit", line));
    }
    if (a.related && a.related.length) {
      body.appendChild(el("p", "chat-related-title", a.citations && a.citations.length ? say("chat.related") : say("chat.closest")));
      const ul = el("ul", "chat-related");
      for (const r of a.related) {
        const li = el("li");
        li.appendChild(link(r.url, r.title));
        ul.appendChild(li);
      }
      body.appendChild(ul);
    }
    if (a.handoff && safeUrl(a.handoff.url)) {
      const p = el("p", "chat-handoff-line");
      p.appendChild(link(a.handoff.url, a.handoff.label || say("chat.ask_person"), a.handoff.suggested ? "chat-handoff is-suggested" : "chat-handoff"));
      body.appendChild(p);
    }
    turn.appendChild(body);
    return turn;
  }

  // Wires one chat container (the page's, or the panel's).
  function wire(root) {
    const endpoint = root.getAttribute("data-src") || "/api/chat.php";
    const form = root.querySelector(".chat-form");
    const input = root.querySelector(".chat-input");
    const log = root.querySelector(".chat-log");
    const status = root.querySelector(".chat-status");
    const notice = root.querySelector(".chat-notice");
    const clear = root.querySelector(".chat-clear");
    let history = [];
    let busy = false;

    function remember(role, text) {
      history.push({ role, text: String(text).slice(0, TURN_CHARS) });
      history = history.slice(-HISTORY_TURNS);
    }

    function problemText(r, problem) {
      if (r.status === 429) {
        const wait = Number(r.headers.get("Retry-After"));
        return say("chat.too_many", { wait: wait > 0 ? say("chat.seconds", { n: wait }) : say("chat.a_moment") });
      }
      if (r.status === 404 || r.status === 405) return say("chat.not_here");
      if (r.status === 503) return say("chat.not_now");
      return (problem && problem.detail) || say("chat.failed", { status: r.status });
    }

    async function ask(question) {
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
      try {
        const r = await fetch(endpoint, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(lang ? { message: question, history, language: lang.toLowerCase() } : { message: question, history }),
          cache: "no-store",
          signal: ctrl.signal,
        });
        const data = await r.json().catch(() => null);
        if (!r.ok || !data || typeof data.text !== "string") throw new Error(problemText(r, data));
        return data;
      } catch (e) {
        if (e.name === "AbortError") throw new Error(say("chat.too_long"));
        if (e instanceof TypeError) throw new Error(say("chat.unreachable"));
        throw e;
      } finally {
        clearTimeout(timer);
      }
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const question = input.value.trim();
      if (busy) return;
      if (!question) {
        status.textContent = say("chat.type_first");
        input.focus();
        return;
      }
      busy = true;
      let shown = null;
      form.setAttribute("aria-busy", "true");
      status.classList.remove("chat-error");
      status.textContent = say("chat.looking");
      try {
        const answer = await ask(question);
        const turn = answerView(question, answer);
        log.appendChild(turn);
        if (notice && answer.notice) notice.textContent = answer.notice;
        remember("user", question);
        remember("assistant", answer.text);
        input.value = "";
        status.textContent = "";
        shown = turn;
      } catch (e) {
        status.classList.add("chat-error");
        status.textContent = e.message;
      } finally {
        busy = false;
        form.removeAttribute("aria-busy");
        // Ready for the next question, with the new answer's start in view.
        input.focus({ preventScroll: shown !== null });
        if (shown) shown.scrollIntoView({ block: "start" });
      }
    });

    // Enter sends; Shift+Enter (and Enter while composing text) starts a new line.
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });

    if (clear) {
      clear.addEventListener("click", () => {
        history = [];
        log.textContent = "";
        status.classList.remove("chat-error");
        status.textContent = say("chat.cleared");
        input.value = "";
        input.focus();
      });
    }
  }

  // The panel: the same form and log as the page, in a modal <dialog>.
  function buildPanel(endpoint, pageUrl) {
    const dialog = el("dialog", "chat-dialog");
    dialog.id = "chat-panel";
    dialog.setAttribute("aria-labelledby", "chat-panel-title");
    const head = el("div", "chat-dialog-head");
    head.appendChild(el("h2", null, say("chat.title"))).id = "chat-panel-title";
    const close = el("button", "btn chat-close", say("chat.close"));
    close.type = "button";
    head.appendChild(close);
    dialog.appendChild(head);

    const root = el("section", "chat");
    root.setAttribute("data-src", endpoint);
    root.setAttribute("aria-label", "Conversation");
    const intro = el("p", "chat-hint", say("chat.intro"));
    intro.appendChild(link(pageUrl, say("chat.open_page")));
    root.appendChild(intro);
    const log = el("div", "chat-log");
    log.setAttribute("role", "log");
    log.setAttribute("aria-live", "polite");
    log.setAttribute("aria-label", "Answers");
    root.appendChild(log);
    const form = el("form", "chat-form");
    form.action = pageUrl;
    form.method = "get";
    const label = el("label", null, say("chat.question"));
    label.htmlFor = "chat-panel-input";
    form.appendChild(label);
    const hint = el("p", "chat-hint", say("chat.hint"));
    hint.id = "chat-panel-hint";
    form.appendChild(hint);
    const input = el("textarea", "chat-input");
    input.id = "chat-panel-input";
    input.name = "q";
    input.rows = 3;
    input.maxLength = TURN_CHARS;
    input.required = true;
    input.setAttribute("aria-describedby", "chat-panel-hint");
    form.appendChild(input);
    const actions = el("p", "chat-actions");
    const send = el("button", "chat-send", say("chat.ask"));
    send.type = "submit";
    const clear = el("button", "chat-clear btn", say("chat.start_over"));
    clear.type = "button";
    actions.append(send, " ", clear);
    form.appendChild(actions);
    const status = el("p", "chat-status");
    status.setAttribute("role", "status");
    form.appendChild(status);
    root.appendChild(form);
    const notice = el("p", "chat-notice", say("chat.notice"));
    const privacy = el("a", null, say("chat.privacy"));
    // The privacy notice in the page's language (RFC 6903 `privacy-policy`).
    const policy = document.querySelector('link[rel="privacy-policy"]');
    privacy.href = policy ? policy.getAttribute("href") : "/docs/about/privacy/";
    notice.appendChild(privacy);
    root.appendChild(notice);
    dialog.appendChild(root);

    close.addEventListener("click", () => dialog.close());
    // A click on the backdrop (outside the dialog's box) closes it too.
    dialog.addEventListener("click", (event) => {
      if (event.target !== dialog) return;
      const r = dialog.getBoundingClientRect();
      const inside = event.clientX >= r.left && event.clientX <= r.right && event.clientY >= r.top && event.clientY <= r.bottom;
      if (!inside) dialog.close();
    });
    document.body.appendChild(dialog);
    wire(root);
    return dialog;
  }

  const page = document.getElementById("chat");
  if (page) wire(page);

  const opener = document.getElementById("chat-open");
  if (opener) {
    let panel = null;
    opener.addEventListener("click", () => {
      // On the chat page itself, the page's own field is the chat.
      if (page) {
        page.querySelector(".chat-input").focus();
        return;
      }
      if (!panel) {
        panel = buildPanel(opener.getAttribute("data-src") || "/api/chat.php", opener.getAttribute("data-page") || "/chat/");
        panel.addEventListener("close", () => opener.focus());
      }
      panel.showModal();
      panel.querySelector(".chat-input").focus();
    });
  }
})();
