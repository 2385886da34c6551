// Offline site search. The header's search field (#site-search) loads the
// small head of the split index (/search/browser.json) the first time it
// gets focus, then for each query only the shards its words fall in; pages
// are ranked by weights the generator computed (title over summary over
// section over body text; every query word must match a word, the last
// one its start, or be one edit from a word; accents and case ignored) and
// shows the best results in a listbox under the field (combobox pattern:
// arrows move, Enter opens, Escape closes). Once the list stays put, each
// shown page's Markdown twin is read and a few lines of its text around
// the matched words replace its summary (decision 0250); a query that
// finds nothing offers the nearest indexed words instead. `?q=words` on
// any page opens the results for those words. Without the field, this
// does nothing.
(function () {
  "use strict";
  // The interface words in the page's language (words.{code}.js).
  var say = window.uiWord;
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
    return fold(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
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
    if (a.length > b.length) return oneEdit(b.join(""), a.join(""));
    if (b.length - a.length > 1) return false;
    var p = 0;
    while (p < a.length && a[p] === b[p]) p++;
    var skip = a.length === b.length ? p + 1 : p;
    return a.slice(skip).join("") === b.slice(p + 1).join("");
  }

  // One fetch per key, kept (a failed one is forgotten, to be tried again).
  function once(map, key, make) {
    if (!map.has(key)) {
      var p = make();
      p.catch(function () {
        map.delete(key);
      });
      map.set(key, p);
    }
    return map.get(key);
  }
  function fetched(url, type) {
    return fetch(url, { headers: { Accept: type } }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for " + url);
      return type === "application/json" ? r.json() : r.text();
    });
  }
  function getJSON(path) {
    return once(files, path, function () {
      return fetched(new URL(path, new URL(HEAD_URL, location.href)).href, "application/json");
    });
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
  // word may be half typed), else every term one edit away; with the
  // terms that matched, which the title and the snippet mark.
  function postingsFor(h, word, last) {
    var n = h.shards;
    function scan(terms, fuzzy) {
      var found = new Map();
      var matched = [];
      Object.keys(terms).forEach(function (t) {
        var factor = 0;
        if (t === word) factor = 1.5;
        else if (last && t.lastIndexOf(word, 0) === 0) factor = 1;
        else if (fuzzy && Array.from(word).length >= 4 && oneEdit(t, word)) factor = 0.8;
        if (!factor) return;
        matched.push(t);
        var list = terms[t];
        for (var i = 0; i < list.length; i += 2) {
          var s = list[i + 1] * factor;
          found.set(list[i], Math.max(found.get(list[i]) || 0, s));
        }
      });
      return { docs: found, terms: matched };
    }
    return getJSON(termShard(h, word)).then(function (shard) {
      var exact = scan(shard.terms, false);
      if (exact.docs.size > 0 || Array.from(word).length < 4) return exact;
      var near = scan(shard.terms, true);
      if (near.docs.size > 0) return near;
      return getJSON(nearShard(h, word)).then(function (other) {
        return scan(other.terms, true);
      });
    });
  }
  function termShard(h, word) {
    return "terms-" + (hash(firstTwo(word)) % h.shards) + ".json";
  }
  function nearShard(h, word) {
    return "near-" + (hash(lastTwo(word)) % h.shards) + ".json";
  }

  function search(query) {
    var terms = Array.from(new Set(words(query)));
    if (terms.length === 0) return Promise.resolve({ docs: [], count: 0, match: matcher([], []), suggestions: [] });
    return load().then(function (h) {
      return Promise.all(
        terms.map(function (t, i) {
          return postingsFor(h, t, i === terms.length - 1);
        })
      ).then(function (found) {
        var match = matcher(terms, found);
        // Pages with more of the words first, then by weight. Each word
        // keeps only its best pages, so at a large site the pages that
        // have all of them may be none of those: the pages with most of
        // the words still answer.
        var total = new Map();
        found.forEach(function (here) {
          here.docs.forEach(function (s, d) {
            var seen = total.get(d) || [0, 0];
            total.set(d, [seen[0] + 1, seen[1] + s]);
          });
        });
        var ranked = Array.from(total.entries()).sort(function (a, b) {
          return b[1][0] - a[1][0] || b[1][1] - a[1][1] || a[0] - b[0];
        });
        if (ranked.length === 0) {
          return suggest(h, terms).then(function (suggestions) {
            return { docs: [], count: 0, match: match, suggestions: suggestions };
          });
        }
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
          return { docs: docs, count: ranked.length, match: match, suggestions: [] };
        });
      });
    });
  }

  // Which query word a folded word of a page stands for (-1 for none): the
  // word itself, a term the index matched it to (a completion, an accent,
  // a typo), or for the last word anything it starts.
  function matcher(terms, found) {
    var sets = terms.map(function (t, i) {
      return new Set(found[i].terms.concat([t]));
    });
    return function (w) {
      for (var i = 0; i < terms.length; i++) {
        if (sets[i].has(w)) return i;
        if (i === terms.length - 1 && w.lastIndexOf(terms[i], 0) === 0) return i;
      }
      return -1;
    };
  }

  // Nearest indexed terms to the words of a query that found nothing: the
  // terms of each word's term and near shards (a word's start or end is
  // often right) within a few edits, fewest edits first, then the longer
  // common start, then the term on more pages. One suggestion per rank,
  // each word replaced by its candidate of that rank.
  function suggest(h, terms) {
    var nearest = terms.map(function (word) {
      var n = Array.from(word).length;
      var limit = n <= 4 ? 1 : n <= 7 ? 2 : 3;
      if (n < 3) return [];
      return Promise.all([getJSON(termShard(h, word)), getJSON(nearShard(h, word))]).then(function (shards) {
        var seen = new Map();
        shards.forEach(function (shard) {
          Object.keys(shard.terms).forEach(function (t) {
            var d = seen.has(t) ? limit + 1 : distance(word, t, limit);
            if (d <= limit) seen.set(t, { t: t, d: d, p: common(word, t), pages: shard.terms[t].length });
          });
        });
        var best = Array.from(seen.values()).sort(function (a, b) {
          return a.d - b.d || b.p - a.p || b.pages - a.pages || (a.t < b.t ? -1 : 1);
        });
        return best.slice(0, 3).map(function (c) {
          return c.t;
        });
      });
    });
    return Promise.all(nearest).then(
      function (cands) {
        var out = [];
        for (var k = 0; k < 3; k++) {
          var text = terms
            .map(function (word, i) {
              return cands[i].length ? cands[i][Math.min(k, cands[i].length - 1)] : word;
            })
            .join(" ");
          var more = cands.some(function (c) {
            return k < c.length;
          });
          if (more && out.indexOf(text) < 0) out.push(text);
        }
        return out;
      },
      function () {
        return [];
      }
    );
  }
  // Edits (insertion, deletion, substitution, swap of neighbours) between
  // a and b, or limit + 1 once it is past limit.
  function distance(a, b, limit) {
    a = Array.from(a);
    b = Array.from(b);
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var before = null;
    var prev = [];
    for (var j = 0; j <= b.length; j++) prev.push(j);
    for (var i = 1; i <= a.length; i++) {
      var row = [i];
      var low = i;
      for (j = 1; j <= b.length; j++) {
        var d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (before && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
        row.push(d);
        low = Math.min(low, d);
      }
      if (low > limit) return limit + 1;
      before = prev;
      prev = row;
    }
    return prev[b.length];
  }
  function common(a, b) {
    var i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return i;
  }

  // A page's text, from its Markdown twin (`url + "index.md"`, which every
  // indexed page has): the twin's head (title, summary, licence) left out,
  // then block by block without the markup. Each page is read once.
  var texts = new Map(); // URL -> Promise of its text
  var known = new Map(); // URL -> its text, once read
  function pageText(url) {
    return once(texts, url, function () {
      return fetched(new URL(url + "index.md", location.href).href, "text/markdown").then(function (md) {
        known.set(url, plain(md));
        return known.get(url);
      });
    });
  }
  function plain(md) {
    var lines = md.replace(/\r\n?/g, "\n").split("\n");
    var i = /^# /.test(lines[0]) ? 1 : 0;
    while (i < lines.length && !lines[i].trim()) i++;
    while (i < lines.length && /^>/.test(lines[i])) i++;
    var blocks = [];
    var para = [];
    var fence = "";
    function flush() {
      if (para.length) blocks.push(para.join(" "));
      para = [];
    }
    for (; i < lines.length; i++) {
      var line = lines[i];
      var f = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence) {
        if (f && f[1][0] === fence[0] && f[1].length >= fence.length) {
          fence = "";
          flush();
        } else para.push(line.trim());
        continue;
      }
      var item;
      if (f) {
        flush();
        fence = f[1];
      } else if (!line.trim() || /^\s*\|?[\s:|-]*-{3,}[\s:|-]*$/.test(line) || /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
        flush(); // a blank line, a table's rule, a thematic break
      } else if (/^\s{0,3}\[[^\]^]+\]:\s*\S+\s*$/.test(line)) {
        // a link's definition: no text
      } else if ((item = /^\s{0,3}#{1,6}\s+(.*?)(?:\s*\{[#.][^}]*\})?[\s#]*$/.exec(line))) {
        flush();
        blocks.push(item[1]);
      } else if (/^\s*\|/.test(line)) {
        flush();
        blocks.push(line.trim().replace(/^\||\|$/g, "").split("|").join(" \u00b7 "));
      } else if ((item = /^\s*(?:[-*+]|\d+[.)]|\[\^[^\]]*\]:)\s+(.*)$/.exec(line))) {
        flush();
        para.push(item[1]);
      } else {
        para.push(line.replace(/^\s*(>\s?)+/, "").trim());
      }
    }
    flush();
    // Blocks without a closing stop (headings, list items, table rows)
    // are set apart by a dot, so a snippet does not run them together.
    return blocks
      .map(inline)
      .filter(Boolean)
      .map(function (b, k, all) {
        return k < all.length - 1 && !/[.!?:;,\u2026]$/.test(b) ? b + " \u00b7" : b;
      })
      .join(" ");
  }
  // A block's text without inline markup: links and images leave their
  // text, code spans their ticks only.
  function inline(s) {
    return s
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .split(/(`+[^`]*`+)/)
      .map(function (part, k) {
        if (k % 2) return part.replace(/`+/g, "");
        return part
          .replace(/\[\^[^\]]*\]/g, "")
          .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
          .replace(/<((?:https?|mailto):[^>\s]+)>/g, "$1")
          .replace(/<\/?[A-Za-z][^>]*>/g, "")
          .replace(/(\*{1,3}|~~)(?=\S)(.+?\S)\1/g, "$2")
          .replace(/(^|[^\p{L}\p{N}_])(_{1,3})(?=\S)(.+?\S)\2(?![\p{L}\p{N}_])/gu, "$1$3")
          .replace(/\\([\\`*_{}[\]()#+\-.!|>~<])/g, "$1")
          .replace(/&(amp|lt|gt|quot|#39);/g, function (e, n) {
            return { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" }[n];
          });
      })
      .join("")
      .replace(/\s+/g, " ")
      .trim();
  }

  // About SNIPPET characters of `text` around its matched words, as runs
  // [text, marked]: the stretch holding the most of the query's words
  // (then the most matches, then the earliest), with a little before it,
  // cut at spaces, with ellipses where the text goes on. Null when the
  // text has none of the words (they were in the title or section).
  var SNIPPET = 180;
  function snippet(text, match) {
    var hits = [];
    var re = /[\p{L}\p{N}\p{M}]+/gu;
    var m;
    while ((m = re.exec(text))) {
      var w = match(fold(m[0]));
      if (w >= 0) hits.push({ from: m.index, to: m.index + m[0].length, word: w });
    }
    if (!hits.length) return null;
    var best = null;
    for (var i = 0; i < hits.length; i++) {
      var got = new Set();
      var j = i;
      for (; j < hits.length && hits[j].to - hits[i].from <= SNIPPET; j++) got.add(hits[j].word);
      var score = got.size * 1000 + (j - i);
      if (!best || score > best.score) best = { score: score, from: hits[i].from, to: hits[Math.max(i, j - 1)].to };
    }
    var room = Math.max(0, SNIPPET - (best.to - best.from));
    var start = Math.max(0, best.from - Math.min(Math.floor(room / 2), 50));
    var end = Math.min(text.length, start + SNIPPET);
    if (end === text.length) start = Math.max(0, Math.min(best.from, end - SNIPPET));
    // Begin at the last sentence start before the words, else at a space.
    var lead = text.slice(start, best.from);
    var stop = 0;
    var sentence = /[.!?\u00b7]\s+(?=\S)/g;
    while ((m = sentence.exec(lead))) stop = m.index + m[0].length;
    if (stop > 0) start += stop;
    else if (start > 0 && /\S/.test(text[start - 1])) {
      var space = text.slice(start, best.from).search(/\s/);
      if (space >= 0) start += space + 1;
    }
    if (end < text.length && /\S/.test(text[end])) {
      var back = text.slice(best.to, end).search(/\s\S*$/);
      if (back >= 0) end = best.to + back;
    }
    var runs = [];
    if (start > 0) runs.push(["\u2026 ", false]);
    var at = start;
    hits.forEach(function (h) {
      if (h.from < start || h.to > end) return;
      if (h.from > at) runs.push([text.slice(at, h.from), false]);
      runs.push([text.slice(h.from, h.to), true]);
      at = h.to;
    });
    if (at < end) runs.push([text.slice(at, end), false]);
    runs[runs.length - 1][0] = runs[runs.length - 1][0].replace(/[\s\u00b7]+$/, "");
    if (end < text.length) runs.push([" \u2026", false]);
    return runs;
  }

  // Text as nodes with the marked words in <mark> (never as HTML).
  function marked(runs, into) {
    runs.forEach(function (r) {
      if (!r[1]) return into.appendChild(document.createTextNode(r[0]));
      var m = document.createElement("mark");
      m.textContent = r[0];
      into.appendChild(m);
    });
  }

  // The title with its matched words marked.
  function highlight(text, match, into) {
    var runs = String(text)
      .split(/([^\p{L}\p{N}\p{M}]+)/u)
      .map(function (part) {
        return [part, !!part && match(fold(part)) >= 0];
      });
    marked(runs, into);
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
    // Which query the list answers (typing renders several in turn), and
    // once their pages were read, which query its snippets answer.
    list.setAttribute("data-query", query);
    list.removeAttribute("data-snippets");
    var items = results.map(function (doc, i) {
      var li = document.createElement("li");
      li.id = "search-result-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.setAttribute("data-url", doc.url);
      var t = document.createElement("span");
      t.className = "r-title";
      highlight(doc.title, answer.match, t);
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
      return { url: doc.url, li: li };
    });
    var n = answer.count;
    list.hidden = results.length === 0;
    if (n === 0) missed(query, answer.suggestions);
    else
      status.textContent =
        (n === 1 ? say("search.found_one") : say("search.found", { n: n }) + (n > MAX_SHOWN ? say("search.showing", { n: MAX_SHOWN }) : "")) +
        say("search.keys");
    setOpen(true);
    snippets(query, items, answer.match);
  }

  // "No pages match", and the nearest indexed words as buttons that search
  // for them (focus stays in the field, so the combobox goes on working).
  function missed(query, suggestions) {
    status.textContent = say("search.none", { query: query.trim() });
    if (!suggestions.length) return;
    status.appendChild(document.createTextNode(say("search.did_you_mean")));
    suggestions.forEach(function (text, i) {
      if (i) status.appendChild(document.createTextNode(", "));
      var b = document.createElement("button");
      b.type = "button";
      b.className = "search-suggestion";
      b.textContent = text;
      b.addEventListener("mousedown", function (e) {
        e.preventDefault();
      });
      b.addEventListener("click", function () {
        clearTimeout(timer);
        input.value = text;
        input.focus();
        run();
      });
      status.appendChild(b);
    });
    status.appendChild(document.createTextNode("?"));
  }

  // The shown pages' snippets. Pages not read yet wait until the list has
  // stayed SNIPPET_DELAY ms, so typing a word does not read the pages of
  // every prefix on the way; a page read before is used at once.
  var SNIPPET_DELAY = 250;
  var snippetTimer = 0;
  function snippets(query, items, match) {
    clearTimeout(snippetTimer);
    function done() {
      if (list.getAttribute("data-query") === query) list.setAttribute("data-snippets", query);
    }
    var waiting = items.filter(function (it) {
      if (!known.has(it.url)) return true;
      place(it.li, known.get(it.url), match);
      return false;
    });
    if (!waiting.length) return done();
    snippetTimer = setTimeout(function () {
      Promise.all(
        waiting.map(function (it) {
          return pageText(it.url).then(
            function (text) {
              if (it.li.isConnected) place(it.li, text, match);
            },
            function () {} // the summary stays
          );
        })
      ).then(done);
    }, SNIPPET_DELAY);
  }
  function place(li, text, match) {
    var runs = snippet(text, match);
    if (!runs) return;
    var s = document.createElement("span");
    s.className = "r-snippet";
    marked(runs, s);
    var old = li.querySelector(".r-summary");
    if (old) li.replaceChild(s, old);
    else li.appendChild(s);
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
        status.textContent = say("search.unavailable");
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
  // Focus may move from the field to a suggestion and back: the panel
  // closes when it has left both.
  function left() {
    setTimeout(function () {
      var at = document.activeElement;
      if (at !== input && !panel.contains(at)) setOpen(false);
    }, 150);
  }
  input.addEventListener("blur", left);
  panel.addEventListener("focusout", left);
  panel.addEventListener("keydown", function (e) {
    if (e.key === "Escape") {
      e.preventDefault();
      setOpen(false);
      input.focus();
    }
  });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) {
    input.value = q;
    run();
  }
})();
