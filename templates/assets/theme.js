// Loaded without `defer` in <head> so the remembered theme applies before
// the first paint (no flash). Marks <html> with `js` for script-only controls.
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var theme = localStorage.getItem("theme");
    if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
  } catch (e) {
    // Storage may be disabled; the system preference applies.
  }
})();
