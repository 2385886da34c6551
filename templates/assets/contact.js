// The contact form: solves the human-verification challenge in a Web Worker
// (started when the visitor first uses the form), sends the enquiry as JSON,
// and shows the server's per-field errors next to the fields and in a
// focused summary. On the thank-you page, shows the enquiry's reference.
// Its words come from the page's language (words.{code}.js, `[script.contact]`);
// the server writes the field errors in the language the form sends.
"use strict";

(function () {
  const say = window.uiWord;
  const receipt = document.getElementById("contact-receipt");
  if (receipt) {
    const reference = new URLSearchParams(location.search).get("reference") || "";
    if (/^ENQ-[0-9A-Z]{6}-[0-9A-Z]{6}$/.test(reference)) {
      document.getElementById("contact-reference").textContent = reference;
      receipt.hidden = false;
    }
  }

  const form = document.getElementById("contact-form");
  if (!form) return;
  const status = document.getElementById("contact-status");
  const summary = document.getElementById("contact-errors");
  const list = document.getElementById("contact-errors-list");
  const button = document.getElementById("contact-submit");
  const CHALLENGE_CODES = ["challenge_missing", "challenge_invalid", "challenge_expired", "challenge_replayed"];
  let solving = null;

  // A prefilled enquiry (the chat's hand-off, the MCP prepare_enquiry
  // tool): `topic` and `message` from the fragment (which no server sees;
  // the query too, for links made before) go into empty fields; a topic
  // only when it is one of the form's own. Nothing is sent: the visitor
  // reviews the form and presses send.
  (function prefill() {
    const params = new URLSearchParams(location.search);
    const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
    const get = (name) => fragment.get(name) || params.get(name) || "";
    const topic = get("topic");
    const message = get("message").trim();
    const select = form.elements.topic;
    const box = form.elements.message;
    let filled = false;
    if (topic && !select.value && Array.from(select.options).some((o) => o.value && o.value === topic)) {
      select.value = topic;
      filled = true;
    }
    if (message && !box.value) {
      box.value = message.slice(0, box.maxLength > 0 ? box.maxLength : 5000);
      filled = true;
    }
    if (!filled) return;
    const note = document.createElement("p");
    note.id = "contact-prefilled";
    note.className = "notice contact-prefilled";
    note.textContent = say("contact.prefilled", { send: say("contact.send") });
    form.parentNode.insertBefore(note, form);
  })();

  function solve() {
    if (solving) return solving;
    solving = fetch(form.dataset.challenge, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then((r) => {
        if (!r.ok) throw new Error(say("contact.cannot_start", { status: r.status }));
        return r.json();
      })
      .then((challenge) => new Promise((resolve, reject) => {
        const worker = new Worker(form.dataset.worker);
        worker.onmessage = (e) => {
          worker.terminate();
          if (e.data.ok) {
            resolve(btoa(JSON.stringify({ challenge, solution: e.data.solution })));
          } else {
            reject(new Error(say("contact.verification_failed")));
          }
        };
        worker.onerror = () => {
          worker.terminate();
          reject(new Error(say("contact.verification_failed")));
        };
        worker.postMessage(challenge);
      }));
    solving.catch(() => { solving = null; });
    return solving;
  }

  function clearErrors() {
    summary.hidden = true;
    list.textContent = "";
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    for (const el of form.querySelectorAll(".contact-error")) {
      el.hidden = true;
      el.textContent = "";
    }
  }

  function showErrors(items) {
    for (const item of items) {
      const field = form.elements[item.name];
      const message = document.getElementById("f-" + item.name + "-error");
      const li = document.createElement("li");
      if (field && message) {
        field.setAttribute("aria-invalid", "true");
        message.textContent = item.reason;
        message.hidden = false;
        const a = document.createElement("a");
        a.href = "#" + field.id;
        a.textContent = item.reason;
        a.addEventListener("click", (e) => { e.preventDefault(); field.focus(); });
        li.appendChild(a);
      } else {
        li.textContent = item.reason;
      }
      list.appendChild(li);
    }
    summary.hidden = false;
    summary.focus();
  }

  form.addEventListener("focusin", () => { solve().catch(() => {}); }, { once: true });

  async function send(retried) {
    const data = Object.fromEntries(new FormData(form));
    data.consent = form.elements.consent.checked;
    const r = await fetch(form.action, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(data),
    });
    if (r.status === 201) {
      const body = await r.json();
      location.assign(form.dataset.thanks + "?reference=" + encodeURIComponent(body.reference));
      return;
    }
    const problem = await r.json().catch(() => ({}));
    if (problem.code === "submitted_too_fast" && !retried) {
      status.textContent = say("contact.in_a_moment");
      await new Promise((ok) => setTimeout(ok, 3000));
      return send(true);
    }
    if (CHALLENGE_CODES.includes(problem.code)) {
      solving = null;
      form.elements.altcha.value = "";
    }
    status.textContent = "";
    showErrors(problem.errors && problem.errors.length
      ? problem.errors
      : [{ name: "", reason: problem.detail || say("contact.not_sent_status", { status: r.status }) }]);
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    button.disabled = true;
    status.textContent = say("contact.checking");
    try {
      form.elements.altcha.value = await solve();
      status.textContent = say("contact.sending");
      await send(false);
    } catch (e) {
      status.textContent = "";
      showErrors([{ name: "", reason: e.message || say("contact.not_sent") }]);
    } finally {
      button.disabled = false;
    }
  });
})();
