(function () {
  "use strict";
  function cellKey(cell) {
    var k = cell.getAttribute("data-sort");
    if (k !== null && k !== "") { return { num: true, v: parseFloat(k) }; }
    return { num: false, v: cell.textContent.trim().toLowerCase() };
  }
  function sortTable(th) {
    var table = th.closest("table");
    var body = table.tBodies[0];
    var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a.cells[idx]), y = cellKey(b.cells[idx]);
      var r;
      if (x.num && y.num) { r = x.v - y.v; }
      else if (x.num !== y.num) { r = x.num ? -1 : 1; }
      else { r = x.v < y.v ? -1 : (x.v > y.v ? 1 : 0); }
      return asc ? r : -r;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.setAttribute("tabindex", "0");
    th.addEventListener("click", function () { sortTable(th); });
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortTable(th); } });
  });
})();
