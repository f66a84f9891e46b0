/* Code playback on the reviewer's report: a slider over the snapshots, the code and the diff
   from the snapshot before. Text only (textContent): nothing the candidate wrote is markup. */
(function () {
  "use strict";
  document.querySelectorAll(".playback").forEach(function (box) {
    var script = box.querySelector("script[type='application/json']");
    if (!script) return;
    var frames = JSON.parse(script.textContent);
    var slider = box.querySelector(".playback-slider");
    var code = box.querySelector(".playback-code");
    var diff = box.querySelector(".playback-diff");
    var at = box.querySelector(".playback-at");
    function show(i) {
      var f = frames[i];
      if (!f) return;
      code.textContent = f.source;
      diff.textContent = "";
      (f.diff || "(no change)").split("\n").forEach(function (line) {
        var span = document.createElement("span");
        span.className = line.charAt(0) === "+" && line.indexOf("+++") !== 0 ? "add"
          : line.charAt(0) === "-" && line.indexOf("---") !== 0 ? "del" : "";
        span.textContent = line + "\n";
        diff.appendChild(span);
      });
      at.textContent = (i + 1) + "/" + frames.length + " · minute " + (f.t / 60).toFixed(1) + " · " + f.kind + " · " + f.language;
    }
    slider.addEventListener("input", function () { show(Number(slider.value)); });
    show(Number(slider.value));
  });
})();
