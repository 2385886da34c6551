// Progressive enhancement only: every page works without this script.
document.documentElement.classList.add("js");
