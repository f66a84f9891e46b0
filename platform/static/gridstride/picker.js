// A problem picker's public-problem warning (catalog/picker.py): shown while any box of a public
// problem (data-public) is ticked in the same form, hidden otherwise.
(function () {
  "use strict";
  document.querySelectorAll("[data-public-warning]").forEach(function (warning) {
    var form = warning.closest("form");
    if (!form || !form.querySelector("input[data-public]")) return; // no picker: the page decided
    function update() {
      warning.hidden = !form.querySelector("input[data-public]:checked");
    }
    form.addEventListener("change", update);
    update();
  });
})();
