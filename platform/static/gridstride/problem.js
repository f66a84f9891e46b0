// The problem page: editor, language switcher, drafts, Run / Submit with a live result panel,
// keyboard shortcuts, the draggable divider and math in the statement.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("workspace-data").textContent);
  var live = window.GridstrideLive;
  var form = document.getElementById("submit-form");
  var textarea = document.getElementById("source");
  var languageSelect = document.getElementById("language");
  var gpuSelect = document.getElementById("gpu");
  var vimBox = document.getElementById("vim");
  var saveState = document.getElementById("save-state");
  var result = document.getElementById("result");
  var workspace = document.getElementById("workspace");
  var key = function (name) { return "gridstride:" + name; };
  var store = {
    get: function (k) { try { return window.localStorage.getItem(k); } catch (e) { return null; } },
    set: function (k, v) { try { window.localStorage.setItem(k, v); return true; } catch (e) { return false; } },
  };

  // --- math in the statement ------------------------------------------------------------------
  if (window.renderMathInElement) {
    window.renderMathInElement(document.getElementById("statement"), {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "$", right: "$", display: false },
      ],
      throwOnError: false,
    });
  }

  // --- editor and drafts ------------------------------------------------------------------------
  var languages = data.languages.map(function (l) { return l.id; });
  var lang = store.get(key("lang:" + data.slug));
  var starter = function (language) { return data.starters[language] || ""; };
  // Kept in this browser and, signed in on the practice page, on the site (drafts.js).
  var drafts = window.GridstrideDrafts.create({
    slug: data.slug,
    store: store,
    server: data.drafts || null,
    csrf: (form.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "",
    // Only about the language on screen: a late answer for another one would mislead.
    say: function (language, text) { if (language === lang) saveState.textContent = text; },
    beforeLeaving: function () { if (dirty) saveNow(); },
  });
  if (lang === null) lang = drafts.latestLanguage();
  // Opened from a submission (?from=<id>): its code becomes the draft of its language.
  if (data.load) {
    lang = data.load.language;
    drafts.keep(lang, data.load.source, false);
    store.set(key("lang:" + data.slug), lang);
  }
  if (languages.indexOf(lang) < 0) lang = languages[0];
  languageSelect.value = lang;
  var savedGpu = store.get(key("gpu"));
  if (savedGpu && data.gpus.indexOf(savedGpu) >= 0) gpuSelect.value = savedGpu;
  gpuSelect.addEventListener("change", function () { store.set(key("gpu"), gpuSelect.value); });

  function initialText(language) {
    var draft = drafts.text(language);
    return draft !== null ? draft : starter(language);
  }

  var saveTimer = null;
  // True while the page itself replaces the text (a language switch, Reset): that is no edit, so
  // it neither saves a draft nor says "draft saved".
  var replacing = false;
  // Edited since the last save: only an edit makes a draft (an untouched starter or draft is left).
  var dirty = false;
  function saveNow() {
    clearTimeout(saveTimer);
    dirty = false;
    drafts.keep(lang, getText(), false);
  }
  function saveDraft() {
    if (replacing) return;
    dirty = true;
    clearTimeout(saveTimer);
    saveState.textContent = "editing…";
    saveTimer = setTimeout(saveNow, 300);
  }

  var editor = null;
  if (window.GridstrideEditor) {
    textarea.hidden = true;
    editor = window.GridstrideEditor.create(document.getElementById("editor-host"), {
      doc: initialText(lang),
      language: lang,
      vim: store.get(key("vim")) === "1",
      label: "Source code",
      onChange: saveDraft,
      onRun: function () { send("run"); },
      onSubmit: function () { send("submit"); },
    });
    // Long lines scroll sideways: the scroller takes keyboard focus so that scrolling needs no mouse.
    var scroller = document.querySelector("#editor-host .cm-scroller");
    if (scroller) { scroller.tabIndex = 0; scroller.setAttribute("aria-label", "Source code, scrollable"); }
    // Reachable from the page (devtools, the browser tests): the editor host holds its editor.
    document.getElementById("editor-host").gridstrideEditor = editor;
    vimBox.checked = store.get(key("vim")) === "1";
    vimBox.addEventListener("change", function () {
      store.set(key("vim"), vimBox.checked ? "1" : "0");
      editor.setVim(vimBox.checked);
      editor.focus();
    });
  } else {
    textarea.value = initialText(lang);
    textarea.addEventListener("input", saveDraft);
    vimBox.disabled = true;
  }
  if (data.load) saveState.textContent = "loaded from your submission of " + data.load.label;
  var getText = function () { return editor ? editor.getValue() : textarea.value; };
  var setText = function (text) {
    replacing = true;
    try { if (editor) editor.setValue(text); else textarea.value = text; } finally { replacing = false; }
  };

  languageSelect.addEventListener("change", function () {
    if (dirty) saveNow();
    lang = languageSelect.value;
    store.set(key("lang:" + data.slug), lang);
    var draft = drafts.text(lang);
    setText(draft !== null ? draft : starter(lang));
    if (editor) editor.setLanguage(lang);
    saveState.textContent = draft !== null && draft !== starter(lang) ? "draft restored" : "starter loaded";
  });

  document.getElementById("reset").addEventListener("click", function () {
    if (!window.confirm("Replace your code with the " + lang + " starter? Your draft will be lost.")) return;
    clearTimeout(saveTimer);
    dirty = false;
    setText(starter(lang));
    // The starter becomes the draft, here and on the site, so an older draft elsewhere does not return.
    drafts.keep(lang, starter(lang), true);
    saveState.textContent = "starter loaded";
  });

  // --- tabs on narrow screens: Statement / Code / Result, one pane at a time --------------------
  var narrow = window.matchMedia("(max-width: 900px)");
  var tabs = Array.prototype.slice.call(document.querySelectorAll(".ws-tabs a[data-tab]"));
  function showTab(name, focus) {
    workspace.dataset.tab = name;
    tabs.forEach(function (t) {
      if (t.dataset.tab === name) t.setAttribute("aria-current", "page");
      else t.removeAttribute("aria-current");
    });
    if (focus && name === "code") { if (editor) editor.focus(); else textarea.focus(); }
    if (editor && name === "code" && editor.view) editor.view.requestMeasure();
  }
  // "Skip to the editor" on a narrow screen: the Code tab first, so that the link has a pane to land in.
  var skip = document.querySelector(".skip-link[href='#code']");
  if (skip) skip.addEventListener("click", function () { if (narrow.matches) showTab("code", false); });
  workspace.classList.add("tabbed");
  tabs.forEach(function (t) {
    t.addEventListener("click", function (event) {
      if (!narrow.matches) return; // wide screens show every pane: let the link jump
      event.preventDefault();
      showTab(t.dataset.tab, true);
      window.scrollTo(0, 0);
    });
  });
  // Back from "Show me the ladder" (#ladder): on a narrow screen the ladder is under Result.
  showTab(window.location.hash === "#ladder" ? "result" : workspace.dataset.tab || "statement", false);

  // --- run and submit ---------------------------------------------------------------------------
  var following = null;
  function showError(message) {
    result.textContent = "";
    result.appendChild(live.el("p", { class: "notice", role: "alert" }, message));
  }

  function send(mode) {
    if (!data.authenticated) { window.location.href = data.loginUrl; return; }
    if (following) following.stop();
    var body = new FormData(form);
    body.set("mode", mode);
    body.set("source", getText());
    body.set("language", lang);
    if (dirty) saveNow();
    result.textContent = "";
    if (narrow.matches) showTab("result", false);
    var head = live.el("div", { class: "small muted" }, (mode === "run" ? "Run" : "Submit") + " · sending…");
    var stage = live.el("div");
    var report = live.el("div", { id: "report-host" });
    result.appendChild(head);
    result.appendChild(stage);
    result.appendChild(report);
    fetch(data.submitUrl, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": body.get("csrfmiddlewaretoken") },
    })
      .then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (pair) {
        var status = pair[0], payload = pair[1];
        if (status === 401) { window.location.href = data.loginUrl; return; }
        if (status !== 201) { showError(payload.error || "The site refused this submission."); return; }
        head.textContent = "";
        head.appendChild(document.createTextNode((mode === "run" ? "Run" : "Submit") + " · "));
        head.appendChild(live.el("a", { href: payload.url, "data-testid": "submission-link" }, "submission page"));
        live.renderStage(stage, payload);
        following = live.follow(payload.url + "status/", {
          onUpdate: function (s) { live.renderStage(stage, s); },
          onDone: function (s) {
            live.loadReport(s.report_url, report, function (line) {
              if (narrow.matches) showTab("code", false);
              if (editor) editor.goToLine(line);
            }).then(function () {
              // Room for the result: the editor gives up some height, and the chart comes into view.
              workspace.classList.add("has-report");
              var chart = report.querySelector(".roofline-section");
              if (chart && !narrow.matches) chart.scrollIntoView({ block: "nearest" });
              // An accepted run opens the problem's ladder (the server checks): shown below it.
              if (s.verdict === "accepted" && data.ladderUrl && window.GridstrideLadder) {
                window.GridstrideLadder.reveal(data.ladderUrl);
              }
            });
          },
        });
      })
      .catch(function () { showError("Could not reach the site. Your draft is saved; try again."); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send(event.submitter && event.submitter.value === "submit" ? "submit" : "run");
  });
  // Shortcuts also work when the focus is outside the editor.
  document.addEventListener("keydown", function (event) {
    if (!(event.ctrlKey || event.metaKey) || event.key !== "Enter" || event.defaultPrevented) return;
    if (editor && editor.view.hasFocus) return; // the editor's own keymap handled it
    event.preventDefault();
    send(event.shiftKey ? "submit" : "run");
  });

  // --- the divider ------------------------------------------------------------------------------
  var divider = document.getElementById("divider");
  var split = parseFloat(store.get(key("split")) || "");
  function setSplit(pct) {
    split = Math.max(20, Math.min(75, pct));
    workspace.style.setProperty("--split", split + "%");
    divider.setAttribute("aria-valuenow", String(Math.round(split)));
  }
  if (split) setSplit(split);
  divider.addEventListener("pointerdown", function (event) {
    divider.setPointerCapture(event.pointerId);
    divider.classList.add("dragging");
    var move = function (e) {
      var box = workspace.getBoundingClientRect();
      setSplit(((e.clientX - box.left) / box.width) * 100);
    };
    var up = function () {
      divider.classList.remove("dragging");
      divider.removeEventListener("pointermove", move);
      divider.removeEventListener("pointerup", up);
      store.set(key("split"), String(split));
    };
    divider.addEventListener("pointermove", move);
    divider.addEventListener("pointerup", up);
  });
  divider.addEventListener("keydown", function (event) {
    var current = split || 44;
    if (event.key === "ArrowLeft") setSplit(current - 2);
    else if (event.key === "ArrowRight") setSplit(current + 2);
    else return;
    event.preventDefault();
    store.set(key("split"), String(split));
  });
})();
