(function () {
  "use strict";
  var root = document.documentElement;

  function setLanguage(language) {
    root.setAttribute("data-lang", language);
    root.setAttribute("lang", language === "zh" ? "zh-CN" : "en");
    document.querySelectorAll("[data-en]").forEach(function (el) {
      var text = el.getAttribute("data-" + language);
      if (el.tagName === "INPUT") { el.placeholder = text; } else { el.textContent = text; }
    });
    document.querySelectorAll(".lang-switch button").forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-set-lang") === language));
    });
  }
  document.querySelectorAll(".lang-switch button").forEach(function (button) {
    button.addEventListener("click", function () { setLanguage(button.getAttribute("data-set-lang")); });
  });

  var table = document.getElementById("findings-table");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var controls = {
    domain: document.getElementById("filter-domain"),
    severity: document.getElementById("filter-severity"),
    phase: document.getElementById("filter-phase"),
    context: document.getElementById("filter-context"),
    file: document.getElementById("filter-file")
  };
  var shown = document.getElementById("shown-count");

  function matchesContext(row, context) {
    if (!context) { return true; }
    if (context === "counted") { return row.getAttribute("data-counted") === "yes"; }
    if (context === "not-counted") { return row.getAttribute("data-counted") === "no"; }
    var parts = context.split(":");
    return row.getAttribute("data-" + parts[0]) === parts[1];
  }

  function applyFilters() {
    var domain = controls.domain.value, severity = controls.severity.value, phase = controls.phase.value;
    var file = controls.file.value.trim().toLowerCase();
    var context = controls.context.value;
    var count = 0;
    rows.forEach(function (row) {
      var visible = (!domain || row.getAttribute("data-domain") === domain) &&
        (!severity || row.getAttribute("data-severity") === severity) &&
        (!phase || row.getAttribute("data-phases").split(" ").indexOf(phase) >= 0) &&
        (!file || row.getAttribute("data-path").toLowerCase().indexOf(file) >= 0) &&
        matchesContext(row, context);
      row.hidden = !visible;
      if (visible) { count += 1; }
    });
    shown.textContent = String(count);
  }
  Object.keys(controls).forEach(function (key) {
    controls[key].addEventListener(key === "file" ? "input" : "change", applyFilters);
  });

  table.querySelectorAll("th[data-sort]").forEach(function (header) {
    header.addEventListener("click", function () {
      var column = header.cellIndex;
      var numeric = header.getAttribute("data-sort") === "num";
      var direction = header.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      table.querySelectorAll("th[data-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-value"), y = b.cells[column].getAttribute("data-value");
        if (numeric) { return direction * (parseFloat(x) - parseFloat(y)); }
        return direction * x.localeCompare(y, undefined, { numeric: true });
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  applyFilters();
})();
