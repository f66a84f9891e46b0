// The problem page's optimization ladder: each rung's code becomes a read-only editor (the site's
// CodeMirror bundle, highlighted as in the editor) when its <details> first opens, and after a run
// on this page is accepted, problem.js asks for the opened ladder in place of the locked notice.
// The page carries nothing of a ladder before it is open: it is fetched from the server then.
(function () {
  "use strict";

  function highlight(pre, position) {
    if (!pre || !window.GridstrideEditor || pre.hasAttribute("data-highlighted")) return;
    pre.setAttribute("data-highlighted", "1");
    var host = document.createElement("div");
    host.className = "ladder-code";
    pre.parentNode.insertBefore(host, pre);
    window.GridstrideEditor.create(host, {
      doc: pre.textContent,
      language: pre.getAttribute("data-language"),
      readOnly: true,
      label: "Code of rung " + position + ", read-only",
    });
    pre.hidden = true;
    // Long lines scroll sideways: the scroller takes keyboard focus so that scrolling needs no mouse.
    var scroller = host.querySelector(".cm-scroller");
    if (scroller) { scroller.tabIndex = 0; scroller.setAttribute("aria-label", "Code of rung " + position + ", scrollable"); }
  }

  function wire(root) {
    root.querySelectorAll("li.rung").forEach(function (rung, index) {
      var details = rung.querySelector("details.rung-code");
      if (!details) return;
      var pre = details.querySelector("pre.ladder-source");
      if (details.open) highlight(pre, index + 1);
      details.addEventListener("toggle", function () { if (details.open) highlight(pre, index + 1); });
    });
  }

  // Called once a run is accepted: the server decides whether the ladder is open now.
  function reveal(url) {
    var locked = document.querySelector("[data-testid=ladder-locked]");
    if (!locked || !url) return Promise.resolve(false);
    return fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : ""; })
      .then(function (html) {
        if (!html) return false;
        var box = document.createElement("div");
        box.innerHTML = html; // server-rendered, escaped by Django
        var section = box.querySelector("#ladder");
        if (!section) return false;
        locked.replaceWith(section);
        document.getElementById("workspace").classList.add("has-ladder");
        wire(section);
        return true;
      })
      .catch(function () { return false; });
  }

  var ladder = document.querySelector("[data-testid=ladder]");
  if (ladder) wire(ladder);
  window.GridstrideLadder = { wire: wire, reveal: reveal };
})();
