// Progressive enhancement only: every page works without this script.
// The theme toggle and visible links to headings that have an id.
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
  scrollables();
  var resizeTimer = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(scrollables, 200);
  });

  // "#" links after headings with an id, so a section can be linked to.
  var headings = document.querySelectorAll("main h2[id], main h3[id], main h4[id]");
  for (var i = 0; i < headings.length; i++) {
    var h = headings[i];
    if (h.closest(".toc") || h.querySelector(".anchor")) continue;
    var a = document.createElement("a");
    a.className = "anchor";
    a.href = "#" + h.id;
    var mark = document.createElement("span");
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = "#";
    var label = document.createElement("span");
    label.className = "vh";
    label.textContent = "Link to this section";
    a.appendChild(mark);
    a.appendChild(label);
    h.appendChild(a);
  }
})();
