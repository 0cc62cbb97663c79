(function () {
  "use strict";
  // A printed report shows every collapsible: CSS cannot open a <details> in every browser, so
  // open them before printing and close again those that were closed, after.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (d) {
      d.open = true;
      opened.push(d);
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
