// Copy buttons: <button class="copy" data-copy="#element-id"> copies that element's text (or an
// input's value) and says so; without the Clipboard API (plain http on another host) it selects
// the text instead, so Ctrl/Cmd+C finishes the job.
(function () {
  "use strict";
  function say(button, text) {
    var before = button.dataset.label || button.textContent;
    button.dataset.label = before;
    button.textContent = text;
    setTimeout(function () { button.textContent = before; }, 1600);
  }
  function select(el) {
    if (el.select) { el.select(); return; }
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy[data-copy]");
    if (!button) return;
    var el = document.querySelector(button.dataset.copy);
    if (!el) return;
    var text = el.value !== undefined ? el.value : el.textContent;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { say(button, "Copied"); },
        function () { select(el); say(button, "Press Ctrl+C"); }
      );
    } else {
      select(el);
      say(button, "Press Ctrl+C");
    }
  });
})();
