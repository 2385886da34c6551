// Offline site search. The header's search field (#site-search) loads the
// small head of the split index (/search/browser.json) the first time it
// gets focus, then for each query only the shards its words fall in; pages
// are ranked by weights the generator computed (title over summary over
// section over body text; every query word must match a word, the last
// one its start, or be one edit from a word; accents and case ignored) and
// shows the best results in a listbox under the field (combobox pattern:
// arrows move, Enter opens, Escape closes). `?q=words` on any page opens
// the results for those words. Without the field, this does nothing.
(function () {
  "use strict";
  var input = document.getElementById("site-search");
  var panel = document.getElementById("search-panel");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  if (!input || !panel || !list || !status) return;

  var HEAD_URL = input.getAttribute("data-index") || "/search/browser.json";
  var MAX_SHOWN = 8;
  var head = null; // Promise of the head
  var files = new Map(); // path -> Promise of its JSON
  var results = [];
  var active = -1;

  function fold(s) {
    return String(s || "")
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase();
  }
  function words(s) {
    return fold(s)
      .split(/[^\p{L}\p{N}]+/u)
      .filter(function (w) {
        return w.length > 0;
      });
  }
  // FNV-1a over UTF-8, as the generator computes it.
  function hash(s) {
    var bytes = new TextEncoder().encode(s);
    var h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }
  function firstTwo(t) {
    return Array.from(t).slice(0, 2).join("");
  }
  function lastTwo(t) {
    return Array.from(t).slice(-2).join("");
  }
  // True when a and b differ by one insertion, deletion or substitution.
  function oneEdit(a, b) {
    a = Array.from(a);
    b = Array.from(b);
    if (a.length > b.length) {
      var t = a;
      a = b;
      b = t;
    }
    if (b.length - a.length > 1) return false;
    var p = 0;
    while (p < a.length && a[p] === b[p]) p++;
    var skip = a.length === b.length ? p + 1 : p;
    return a.slice(skip).join("") === b.slice(p + 1).join("");
  }

  function getJSON(path) {
    if (!files.has(path)) {
      var base = new URL(HEAD_URL, location.href);
      var p = fetch(new URL(path, base).href, { headers: { Accept: "application/json" } }).then(
        function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status + " for " + path);
          return r.json();
        }
      );
      p.catch(function () {
        files.delete(path);
      });
      files.set(path, p);
    }
    return files.get(path);
  }

  // The split index (decision 0033): the head, then per query word its
  // term shard (keyed by the first two letters), and when that has no
  // term within one edit its near shard (keyed by the last two), then the
  // document shards of the results shown.
  function load() {
    if (!head) {
      head = getJSON(HEAD_URL.replace(/^.*\//, "")).then(function (h) {
        if (h.version !== 1) throw new Error("unknown search index version " + h.version);
        return h;
      });
      head.catch(function () {
        setTimeout(function () {
          head = null;
        }, 5000);
      });
    }
    return head;
  }

  // The postings of one query word: exact and prefix matches (the last
  // word may be half typed), else every term one edit away.
  function postingsFor(h, word, last) {
    var n = h.shards;
    function scan(terms, fuzzy) {
      var found = new Map();
      Object.keys(terms).forEach(function (t) {
        var factor = 0;
        if (t === word) factor = 1.5;
        else if (last && t.lastIndexOf(word, 0) === 0) factor = 1;
        else if (fuzzy && Array.from(word).length >= 4 && oneEdit(t, word)) factor = 0.8;
        if (!factor) return;
        var list = terms[t];
        for (var i = 0; i < list.length; i += 2) {
          var s = list[i + 1] * factor;
          found.set(list[i], Math.max(found.get(list[i]) || 0, s));
        }
      });
      return found;
    }
    return getJSON("terms-" + (hash(firstTwo(word)) % n) + ".json").then(function (shard) {
      var exact = scan(shard.terms, false);
      if (exact.size > 0 || Array.from(word).length < 4) return exact;
      var near = scan(shard.terms, true);
      if (near.size > 0) return near;
      return getJSON("near-" + (hash(lastTwo(word)) % n) + ".json").then(function (other) {
        return scan(other.terms, true);
      });
    });
  }

  function search(query) {
    var terms = Array.from(new Set(words(query)));
    if (terms.length === 0) return Promise.resolve({ docs: [], count: 0 });
    return load().then(function (h) {
      return Promise.all(
        terms.map(function (t, i) {
          return postingsFor(h, t, i === terms.length - 1);
        })
      ).then(function (maps) {
        // Pages with more of the words first, then by weight. Each word
        // keeps only its best pages, so at a large site the pages that
        // have all of them may be none of those: the pages with most of
        // the words still answer.
        var total = new Map();
        maps.forEach(function (here) {
          here.forEach(function (s, d) {
            var seen = total.get(d) || [0, 0];
            total.set(d, [seen[0] + 1, seen[1] + s]);
          });
        });
        var ranked = Array.from(total.entries()).sort(function (a, b) {
          return b[1][0] - a[1][0] || b[1][1] - a[1][1] || a[0] - b[0];
        });
        var shown = ranked.slice(0, MAX_SHOWN);
        var per = h.docs_per_shard;
        return Promise.all(
          shown.map(function (e) {
            return getJSON("docs-" + Math.floor(e[0] / per) + ".json").then(function (shard) {
              var d = shard.docs[e[0] % per];
              return { url: d[0], title: d[1], section: d[2], summary: d[3] };
            });
          })
        ).then(function (docs) {
          return { docs: docs, count: ranked.length };
        });
      });
    });
  }

  // The title with the matched word starts emphasised (built as nodes, never HTML).
  function highlight(text, terms, into) {
    var parts = String(text).split(/([^\p{L}\p{N}]+)/u);
    parts.forEach(function (part) {
      var f = fold(part);
      var hit = f && terms.some(function (t) {
        return f.lastIndexOf(t, 0) === 0;
      });
      if (hit) {
        var m = document.createElement("mark");
        m.textContent = part;
        into.appendChild(m);
      } else {
        into.appendChild(document.createTextNode(part));
      }
    });
  }

  function setOpen(open) {
    panel.hidden = !open;
    input.setAttribute("aria-expanded", open && results.length > 0 ? "true" : "false");
    if (!open) setActive(-1);
  }

  function setActive(i) {
    var items = list.children;
    if (active >= 0 && items[active]) items[active].setAttribute("aria-selected", "false");
    active = i;
    if (i >= 0 && items[i]) {
      items[i].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", items[i].id);
      items[i].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function render(query, answer) {
    var found = answer.docs;
    results = found.slice(0, MAX_SHOWN);
    active = -1;
    input.removeAttribute("aria-activedescendant");
    list.textContent = "";
    // Which query the list answers: typing renders several in turn.
    list.setAttribute("data-query", query);
    var terms = words(query);
    results.forEach(function (doc, i) {
      var li = document.createElement("li");
      li.id = "search-result-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.setAttribute("data-url", doc.url);
      var t = document.createElement("span");
      t.className = "r-title";
      highlight(doc.title, terms, t);
      li.appendChild(t);
      if (doc.section) {
        var m = document.createElement("span");
        m.className = "r-meta";
        m.textContent = doc.section;
        li.appendChild(m);
      }
      if (doc.summary) {
        var s = document.createElement("span");
        s.className = "r-summary";
        s.textContent = doc.summary;
        li.appendChild(s);
      }
      li.addEventListener("mousedown", function (e) {
        e.preventDefault(); // keep focus in the field
      });
      li.addEventListener("click", function () {
        go(doc.url);
      });
      list.appendChild(li);
    });
    var n = answer.count;
    list.hidden = results.length === 0;
    status.textContent =
      n === 0
        ? "No pages match \u201c" + query.trim() + "\u201d."
        : n === 1
          ? "1 page found. Use the arrow keys to choose, Enter to open."
          : n + " pages found" + (n > MAX_SHOWN ? ", showing the best " + MAX_SHOWN : "") +
            ". Use the arrow keys to choose, Enter to open.";
    setOpen(true);
  }

  function go(url) {
    setOpen(false);
    window.location.assign(url);
  }

  var timer = 0;
  var seq = 0;
  function run() {
    var query = input.value;
    var mine = ++seq;
    if (words(query).length === 0) {
      results = [];
      list.textContent = "";
      status.textContent = "";
      setOpen(false);
      return;
    }
    search(query).then(
      function (answer) {
        if (mine === seq) render(query, answer);
      },
      function () {
        if (mine !== seq) return;
        results = [];
        list.textContent = "";
        list.hidden = true;
        status.textContent = "Search is not available on this copy of the site.";
        setOpen(true);
      }
    );
  }

  input.addEventListener("focus", function () {
    load().catch(function () {});
    if (input.value && results.length) setOpen(true);
  });
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 60);
  });
  input.addEventListener("keydown", function (e) {
    var n = results.length;
    if (e.key === "ArrowDown") {
      e.preventDefault();
      if (panel.hidden) run();
      else if (n) setActive(active < n - 1 ? active + 1 : 0);
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (n) setActive(active > 0 ? active - 1 : n - 1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      clearTimeout(timer);
      if (n && !panel.hidden) go(results[active >= 0 ? active : 0].url);
      else run();
    } else if (e.key === "Escape") {
      if (!panel.hidden) {
        e.preventDefault();
        setOpen(false);
      } else {
        input.value = "";
      }
    }
  });
  input.addEventListener("blur", function () {
    setTimeout(function () {
      if (document.activeElement !== input) setOpen(false);
    }, 150);
  });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) {
    input.value = q;
    run();
  }
})();
