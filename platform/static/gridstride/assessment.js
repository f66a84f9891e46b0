/* The assessment workspace on top of problem.js: the countdown (the server's deadline; the page
   only shows it), code snapshots as the candidate types (debounced), pastes and time away. */
(function () {
  "use strict";
  var node = document.getElementById("assessment-data");
  if (!node) return;
  var data = JSON.parse(node.textContent);
  var csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  var countdown = document.getElementById("countdown");
  var deadline = null, skew = 0;

  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
    }).then(function (r) { return r.json(); }).catch(function () { return null; });
  }

  function setClock(c) {
    if (!c) return;
    if (c.state !== "running") { window.location.href = data.landingUrl; return; }
    deadline = c.deadline ? Date.parse(c.deadline) : null;
    skew = Date.parse(c.now) - Date.now();
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    if (deadline === null || !countdown) return;
    var left = Math.max(0, Math.round((deadline - (Date.now() + skew)) / 1000));
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    countdown.textContent = (h ? h + ":" + pad(m) : m) + ":" + pad(s);
    countdown.classList.toggle("urgent", left <= 300);
    if (left === 0) refresh();
  }
  var refreshing = false;
  function refresh() {
    if (refreshing) return;
    refreshing = true;
    fetch(data.clockUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); }).then(setClock).catch(function () {})
      .then(function () { refreshing = false; });
  }
  setClock(data.clock);
  tick();
  setInterval(tick, 1000);
  setInterval(refresh, 15000);  // queue credit moves the deadline

  // Snapshots: the code at most every 3 s while it changes, once it has been still for 1.5 s.
  function editorText() {
    var host = document.getElementById("editor-host");
    if (host && host.gridstrideEditor) return host.gridstrideEditor.getValue();
    var ta = document.getElementById("source");
    return ta ? ta.value : "";
  }
  var lastSent = editorText(), lastChange = 0, lastText = lastSent, lastPost = 0;
  setInterval(function () {
    var text = editorText(), now = Date.now();
    if (text !== lastText) { lastText = text; lastChange = now; return; }
    if (text === lastSent || now - lastChange < 1500 || now - lastPost < 3000) return;
    lastSent = text; lastPost = now;
    var lang = (document.getElementById("language") || {}).value || "";
    post(data.snapshotUrl, { source: text, language: lang }).then(function (c) { if (c && c.state) setClock(c); });
  }, 500);

  // Pastes (their size only) and time away from the page, for the reviewer's signals.
  document.addEventListener("paste", function (e) {
    var text = (e.clipboardData && e.clipboardData.getData("text")) || "";
    if (text.length) post(data.eventUrl, { kind: "paste", chars: text.length });
  }, true);
  var awaySince = null;
  function away() { if (awaySince === null) awaySince = Date.now(); }
  function back() {
    if (awaySince === null) return;
    var seconds = (Date.now() - awaySince) / 1000;
    awaySince = null;
    if (seconds >= 2) post(data.eventUrl, { kind: "away", seconds: seconds });
    refresh();
  }
  document.addEventListener("visibilitychange", function () { if (document.hidden) away(); else back(); });
  window.addEventListener("blur", away);
  window.addEventListener("focus", back);
})();
