// Postbox console: the few behaviours that need a script. Pages work without it.
(function () {
  "use strict";
  function selectAll(box) {
    var form = box.closest("form") || document;
    form.querySelectorAll("input[type=checkbox][name=id]").forEach(function (b) { b.checked = box.checked; });
    count(form);
  }
  function count(form) {
    var n = form.querySelectorAll("input[type=checkbox][name=id]:checked").length;
    form.querySelectorAll("[data-selected-count]").forEach(function (el) { el.textContent = String(n); });
  }
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (t.matches && t.matches("input[data-select-all]")) { selectAll(t); }
    else if (t.matches && t.matches("input[type=checkbox][name=id]")) { count(t.closest("form") || document); }
  });
})();
