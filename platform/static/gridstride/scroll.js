/* Content that scrolls sideways inside the page (a wide table on a narrow screen, a long formula, a
   code listing) takes keyboard focus, so it can be scrolled without a mouse (WCAG 2.1.1). Only while
   it does overflow: a table that fits adds no tab stop. Elements given a tabindex by their template
   (the labelled .table-scroll regions) are left as they are. Runs on every page, again when the
   window is resized and when the page adds content (a report arriving on the problem page). */
(function () {
  "use strict";
  var SELECTOR = "main table, main .katex-display, main pre";

  function scrolls(el) {
    var overflow = window.getComputedStyle(el).overflowX;
    return (overflow === "auto" || overflow === "scroll") && el.scrollWidth > el.clientWidth + 1;
  }

  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (el) {
      var ours = el.dataset.scrollFocus === "1";
      if (el.hasAttribute("tabindex") && !ours) return;
      if (scrolls(el)) {
        if (!ours) { el.tabIndex = 0; el.dataset.scrollFocus = "1"; }
      } else if (ours) {
        el.removeAttribute("tabindex");
        delete el.dataset.scrollFocus;
      }
    });
  }

  var pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; mark(); });
  }
  mark();
  window.addEventListener("load", mark);
  window.addEventListener("resize", soon);
  var main = document.querySelector("main");
  if (main && window.MutationObserver) new MutationObserver(soon).observe(main, { childList: true, subtree: true });
})();
