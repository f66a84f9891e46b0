/* Drafts of the problem page's editor, one per problem and language.

   Every save goes to this browser's localStorage at once (it works offline). For a signed-in user
   on the practice page (`server`: what the page carries, see submissions/drafts.py) it is also sent
   to the site, debounced: PUSH_AFTER_MS after the last save, and at least every PUSH_AT_LEAST_MS
   while saves go on. When the editor opens, the newer of the two copies wins; a copy newer here
   than on the site (typed offline) is sent up. Times are compared on the site's clock: the page
   carries the site's time when it was made, which gives this browser's offset from it. */
(function () {
  "use strict";
  var PUSH_AFTER_MS = 2000, PUSH_AT_LEAST_MS = 10000;

  function create(opts) {
    var store = opts.store, server = opts.server, say = opts.say;
    var skew = server ? Date.parse(server.now) - Date.now() : 0;  // the site's clock minus ours
    var textKey = function (l) { return "gridstride:draft:" + opts.slug + ":" + l; };
    var atKey = function (l) { return "gridstride:draft-at:" + opts.slug + ":" + l; };
    var pending = {}, firstPending = 0, timer = null, sending = false;

    function keepHere(language, text, at) {
      store.set(atKey(language), String(at));
      return store.set(textKey(language), text);
    }

    // The draft to open for `language` (null: none, the starter it is).
    function text(language) {
      var here = store.get(textKey(language));
      var there = server && server.saved[language];
      if (there) {
        var hereAt = Number(store.get(atKey(language)) || 0) + skew;
        if (here === null || Date.parse(there.at) > hereAt) {
          if (here !== there.source) keepHere(language, there.source, Date.parse(there.at) - skew);
          return there.source;
        }
      }
      // Only here, or newer here (typed while the site was out of reach): the site gets it too.
      if (here !== null && server && server.urls[language] && !(there && there.source === here)) {
        pending[language] = here;
        schedule();
      }
      return here;
    }

    // The language of the draft saved last on the site, for a browser that never chose one.
    function latestLanguage() {
      if (!server) return null;
      var best = null;
      Object.keys(server.saved).forEach(function (l) {
        if (best === null || Date.parse(server.saved[l].at) > Date.parse(server.saved[best].at)) best = l;
      });
      return best;
    }

    // Keep an edit: here at once, on the site soon (at once with `now`).
    function keep(language, value, now) {
      var ok = keepHere(language, value, Date.now());
      if (!server || !server.urls[language]) {
        say(language, ok ? "draft saved" : "drafts unavailable");
        return;
      }
      say(language, ok ? "draft saved in this browser" : "saving the draft…");
      pending[language] = value;
      if (now) push(false); else schedule();
    }

    function schedule() {
      var t = Date.now();
      if (!firstPending) firstPending = t;
      clearTimeout(timer);
      timer = setTimeout(function () { push(false); }, Math.max(0, Math.min(PUSH_AFTER_MS, firstPending + PUSH_AT_LEAST_MS - t)));
    }

    function send(language, value, keepalive) {
      return fetch(server.urls[language], {
        method: "POST",
        body: value,
        credentials: "same-origin",
        keepalive: keepalive,
        headers: { "Content-Type": "text/plain;charset=UTF-8", Accept: "application/json", "X-CSRFToken": opts.csrf },
      });
    }

    // One language's pending draft to the site (all of them, as the page goes away, with `leaving`).
    function push(leaving) {
      clearTimeout(timer);
      timer = null;
      var languages = Object.keys(pending);
      if (!languages.length) { firstPending = 0; return; }
      if (leaving) {
        languages.forEach(function (l) { send(l, pending[l], true).catch(function () {}); });
        pending = {};
        return;
      }
      if (sending) { timer = setTimeout(function () { push(false); }, 500); return; }
      var language = languages[0], value = pending[language];
      delete pending[language];
      if (!Object.keys(pending).length) firstPending = 0;
      sending = true;
      var again = function (language2, value2) { if (!(language2 in pending)) pending[language2] = value2; };
      send(language, value, false)
        .then(function (r) {
          sending = false;
          if (r.ok) {
            if (!(language in pending)) say(language, "draft saved");
          } else if (r.status === 429) {
            again(language, value);
            var wait = Number(r.headers.get("Retry-After") || "5");
            say(language, "draft saved in this browser; the site takes it in " + wait + " s");
            clearTimeout(timer);
            timer = setTimeout(function () { push(false); }, wait * 1000);
            return;
          } else if (r.status === 413) {
            say(language, "draft too large for the site: saved in this browser only");
          } else {
            say(language, "draft saved in this browser only");  // logged out, or the form expired
          }
          if (Object.keys(pending).length) schedule();
        })
        .catch(function () {
          sending = false;
          again(language, value);
          say(language, "draft saved in this browser (the site is out of reach)");
        });
    }

    if (server) {
      window.addEventListener("online", function () { push(false); });
      // Leaving with edits not yet sent: send them, the browser finishes the requests (keepalive).
      window.addEventListener("pagehide", function () { if (opts.beforeLeaving) opts.beforeLeaving(); push(true); });
    }
    return { text: text, keep: keep, latestLanguage: latestLanguage };
  }

  window.GridstrideDrafts = { create: create };
})();
