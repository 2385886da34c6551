// Progressive enhancement only: every page works without this script.
// The theme toggle and visible links to headings that have an id; and two
// helpers the pages' own scripts share (stats.js, readings.js).

// The page's language for dates, in the reader's own variant of it (en-GB,
// en-US, nl-BE) when the browser names one.
window.uiLocale = function () {
  var lang = document.documentElement.lang || "en";
  var base = lang.toLowerCase().split("-")[0];
  var langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  for (var i = 0; i < langs.length; i++) {
    var l = String(langs[i] || "");
    if (l.toLowerCase().split("-")[0] !== base) continue;
    try {
      if (Intl.DateTimeFormat.supportedLocalesOf(l).length) return l;
    } catch (e) {
      // not a language tag: try the next
    }
  }
  return lang;
};

// Appends the word `key` (words.{code}.js) to `parent`, each {name}
// replaced by vars[name]: a string as text, a node (a <time>, a link) as
// itself, where the sentence of the page's language puts it.
window.uiFill = function (parent, key, vars) {
  var words = {};
  var nodes = {};
  Object.keys(vars).forEach(function (k) {
    if (typeof vars[k] === "string") words[k] = vars[k];
    else {
      nodes[k] = vars[k];
      words[k] = "\u0000" + k + "\u0000";
    }
  });
  window.uiWord(key, words).split("\u0000").forEach(function (part, i) {
    if (i % 2) parent.appendChild(nodes[part]);
    else if (part) parent.appendChild(document.createTextNode(part));
  });
};

(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");

  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function effectiveTheme() {
    var chosen = root.getAttribute("data-theme");
    if (chosen === "light" || chosen === "dark") return chosen;
    return dark && dark.matches ? "dark" : "light";
  }

  var toggle = document.getElementById("theme-toggle");
  function sync() {
    if (!toggle) return;
    var isDark = effectiveTheme() === "dark";
    toggle.setAttribute("aria-pressed", isDark ? "true" : "false");
    var icon = toggle.querySelector(".icon");
    if (icon) icon.textContent = isDark ? "\u263E" : "\u2600";
  }
  if (toggle) {
    toggle.addEventListener("click", function () {
      var next = effectiveTheme() === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try {
        localStorage.setItem("theme", next);
      } catch (e) {
        // Not remembered when storage is disabled; still applied now.
      }
      sync();
      document.dispatchEvent(new CustomEvent("themechange", { detail: { theme: next } }));
    });
    if (dark && dark.addEventListener) {
      dark.addEventListener("change", function () {
        sync();
        document.dispatchEvent(new CustomEvent("themechange", { detail: { theme: effectiveTheme() } }));
      });
    }
    sync();
  }

  // On a phone the header is one row; its two buttons show the search box
  // and the menu (navigation, chat, theme) below it. Escape closes them.
  var top = document.querySelector(".top");
  function openPart(button, cls, on) {
    if (!top || !button) return;
    top.classList.toggle(cls, on);
    button.setAttribute("aria-expanded", on ? "true" : "false");
  }
  var searchToggle = document.getElementById("search-toggle");
  var menuToggle = document.getElementById("menu-toggle");
  if (searchToggle) {
    searchToggle.addEventListener("click", function () {
      var on = !top.classList.contains("search-open");
      openPart(searchToggle, "search-open", on);
      openPart(menuToggle, "menu-open", false);
      var input = document.getElementById("site-search");
      if (on && input) input.focus();
    });
  }
  if (menuToggle) {
    menuToggle.addEventListener("click", function () {
      var on = !top.classList.contains("menu-open");
      openPart(menuToggle, "menu-open", on);
      openPart(searchToggle, "search-open", false);
    });
  }
  // `?q=words` opens the search's results (search.js): the box is shown.
  if (searchToggle && /[?&]q=/.test(location.search)) openPart(searchToggle, "search-open", true);
  if (top) {
    top.addEventListener("keydown", function (e) {
      // search.js takes the first Escape to close its results.
      if (e.key !== "Escape" || e.defaultPrevented) return;
      if (top.classList.contains("search-open")) {
        openPart(searchToggle, "search-open", false);
        searchToggle.focus();
      } else if (top.classList.contains("menu-open")) {
        openPart(menuToggle, "menu-open", false);
        menuToggle.focus();
      }
    });
  }

  // Code blocks and wide tables that scroll sideways must be reachable with
  // the keyboard, so they take focus while they overflow.
  function scrollables() {
    var boxes = document.querySelectorAll("main pre, main .table-wrap, main table");
    for (var i = 0; i < boxes.length; i++) {
      var b = boxes[i];
      if (b.scrollWidth > b.clientWidth + 1) {
        if (!b.hasAttribute("tabindex")) b.setAttribute("tabindex", "0");
        b.setAttribute("data-scrolls", "");
      } else if (b.hasAttribute("data-scrolls")) {
        b.removeAttribute("tabindex");
        b.removeAttribute("data-scrolls");
      }
    }
  }
  // Tables on a narrow screen. A Markdown table (no class, no id: the
  // scripts' tables keep their own layout) with four or more columns that
  // is wider than the screen allows is stacked: a card per
  // row, each cell under its column's name. Any other table that scrolls
  // keeps its first column in view and says that more columns follow.
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 40rem)") : null;
  function boxOf(t) {
    return t.parentElement && t.parentElement.classList.contains("table-wrap") ? t.parentElement : t;
  }
  function stack(t, on) {
    if (t.classList.contains("table-stacked") === on) return;
    t.classList.toggle("table-stacked", on);
    // Shown as blocks, the table keeps its semantics through these roles.
    var heads = t.tHead ? [].map.call(t.tHead.rows[0].cells, function (c) { return c.textContent.trim(); }) : [];
    t.querySelectorAll("tr").forEach(function (tr) {
      [].forEach.call(tr.cells, function (c, i) {
        if (on) {
          if (c.tagName === "TD" && heads[i]) c.setAttribute("data-label", heads[i]);
          c.setAttribute("role", c.tagName === "TH" ? "columnheader" : "cell");
        } else {
          c.removeAttribute("role");
        }
      });
      if (on) tr.setAttribute("role", "row");
      else tr.removeAttribute("role");
    });
    [t.tHead].concat([].slice.call(t.tBodies)).forEach(function (g) {
      if (!g) return;
      if (on) g.setAttribute("role", "rowgroup");
      else g.removeAttribute("role");
    });
    if (on) t.setAttribute("role", "table");
    else t.removeAttribute("role");
  }
  function tables() {
    document.querySelectorAll("main table").forEach(function (t) {
      var plain = !t.id && !t.className.replace("table-stacked", "").trim() && t.tHead && t.tHead.rows.length;
      var cols = plain ? t.tHead.rows[0].cells.length : 0;
      stack(t, false);
      var box = boxOf(t);
      var stacked = !!(narrow && narrow.matches && cols >= 4 && t.scrollWidth > box.clientWidth + 1);
      stack(t, stacked);
      var cue = box.previousElementSibling;
      var hasCue = cue && cue.classList.contains("table-cue");
      var scrolls = !stacked && box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("table-scrolls", scrolls);
      if (scrolls && !hasCue) {
        cue = document.createElement("p");
        cue.className = "table-cue";
        cue.setAttribute("aria-hidden", "true");
        cue.textContent = window.uiWord("site.more_columns");
        box.parentNode.insertBefore(cue, box);
      } else if (!scrolls && hasCue) {
        cue.remove();
      }
    });
  }
  tables();
  scrollables();
  var resizeTimer = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      tables();
      scrollables();
    }, 200);
  });
  // Tables that scripts draw or fill later (the globe's sites, the monthly
  // figures, a site's readings) are looked at again once the page settles.
  var mutationTimer = 0;
  if (window.MutationObserver && document.querySelector("main")) {
    new MutationObserver(function () {
      clearTimeout(mutationTimer);
      mutationTimer = setTimeout(function () {
        tables();
        scrollables();
      }, 100);
    }).observe(document.querySelector("main"), { childList: true, subtree: true });
  }

  // "#" links after headings with an id, so a section can be linked to.
  var headings = document.querySelectorAll("main h2[id], main h3[id], main h4[id]");
  for (var i = 0; i < headings.length; i++) {
    var h = headings[i];
    // Not in the table of contents, nor in a heading row that already has a
    // link beside it (the home page's figures), which it would push down.
    if (h.closest(".toc, .section-head") || h.querySelector(".anchor")) continue;
    var a = document.createElement("a");
    a.className = "anchor";
    a.href = "#" + h.id;
    var mark = document.createElement("span");
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = "#";
    var label = document.createElement("span");
    label.className = "vh";
    label.textContent = window.uiWord("site.section_link");
    a.appendChild(mark);
    a.appendChild(label);
    h.appendChild(a);
  }
})();
