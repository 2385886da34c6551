// Offline site search. The header's search field (#site-search) loads
// /search-index.json and the parts it lists (all at once) the first time
// it gets focus, ranks pages in the
// browser (title matches over summary over section over body text; every
// query word must match the start of a word; accents and case ignored) and
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

  var INDEX_URL = input.getAttribute("data-index") || "/search-index.json";
  var MAX_SHOWN = 8;
  var WEIGHTS = { title: 10, summary: 4, section: 2, text: 1 };
  var loading = null; // Promise of the prepared index
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

  // An inverted index: sorted vocabulary, and for each word the documents
  // it occurs in with a field-weighted score. Prefix lookups are a binary
  // search into the vocabulary.
  function prepare(json) {
    if (!json || !Array.isArray(json.documents)) throw new Error("unexpected search index format");
    var docs = json.documents;
    var postings = new Map();
    docs.forEach(function (doc, d) {
      var scores = new Map();
      Object.keys(WEIGHTS).forEach(function (field) {
        var seen = new Map();
        words(doc[field]).forEach(function (w) {
          seen.set(w, (seen.get(w) || 0) + 1);
        });
        seen.forEach(function (count, w) {
          // Repetition in the body counts, but only a little.
          var s = WEIGHTS[field] * (field === "text" ? Math.min(count, 5) : 1);
          scores.set(w, (scores.get(w) || 0) + s);
        });
      });
      scores.forEach(function (s, w) {
        var p = postings.get(w);
        if (!p) postings.set(w, (p = []));
        p.push([d, s]);
      });
    });
    var vocab = Array.from(postings.keys()).sort();
    return { docs: docs, postings: postings, vocab: vocab };
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for " + url);
      return r.json();
    });
  }

  function load() {
    if (!loading) {
      loading = getJSON(INDEX_URL)
        .then(function (head) {
          if (head.version !== 2 || !Array.isArray(head.parts)) {
            throw new Error("unknown search index version " + head.version);
          }
          var base = new URL(INDEX_URL, location.href);
          return Promise.all(
            head.parts.map(function (part) {
              return getJSON(new URL(part, base).href);
            })
          ).then(function (parts) {
            var documents = [];
            parts.forEach(function (part) {
              documents = documents.concat(part.documents);
            });
            if (documents.length !== head.documents) {
              throw new Error("the search index changed while loading");
            }
            return { documents: documents };
          });
        })
        .then(prepare);
      loading.catch(function () {
        // Allow a later focus to try again.
        setTimeout(function () {
          loading = null;
        }, 5000);
      });
    }
    return loading;
  }

  function lowerBound(arr, key) {
    var lo = 0;
    var hi = arr.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (arr[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function search(index, query) {
    var terms = Array.from(new Set(words(query)));
    if (terms.length === 0) return [];
    var total = null;
    terms.forEach(function (term) {
      var here = new Map();
      for (var i = lowerBound(index.vocab, term); i < index.vocab.length; i++) {
        var w = index.vocab[i];
        if (w.lastIndexOf(term, 0) !== 0) break;
        // A whole-word match ranks above a prefix match.
        var factor = w === term ? 1.5 : 1;
        index.postings.get(w).forEach(function (p) {
          here.set(p[0], Math.max(here.get(p[0]) || 0, p[1] * factor));
        });
      }
      if (total === null) {
        total = here;
      } else {
        var both = new Map();
        total.forEach(function (s, d) {
          if (here.has(d)) both.set(d, s + here.get(d));
        });
        total = both;
      }
    });
    return Array.from(total.entries())
      .sort(function (a, b) {
        return b[1] - a[1] || index.docs[a[0]].title.localeCompare(index.docs[b[0]].title);
      })
      .map(function (e) {
        return index.docs[e[0]];
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

  function render(query, found) {
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
    var n = found.length;
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
    load().then(
      function (index) {
        if (mine === seq) render(query, search(index, query));
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
