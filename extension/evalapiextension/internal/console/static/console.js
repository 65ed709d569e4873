// evalcol console: small progressive enhancements. Every page works
// without this file; it is served from /ui/static/ (no inline script).
(function () {
  "use strict";

  function onReady(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  function pad(n, w) { n = String(n); while (n.length < (w || 2)) n = "0" + n; return n; }

  onReady(function () {
    // Times are rendered in UTC; show them in the browser's zone, with
    // UTC kept in the title (on hover).
    document.querySelectorAll("time.local[datetime]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime())) return;
      var off = -d.getTimezoneOffset();
      var zone = off === 0 ? "UTC" : "UTC" + (off > 0 ? "+" : "-") + pad(Math.floor(Math.abs(off) / 60)) + ":" + pad(Math.abs(off) % 60);
      el.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" +
        pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3) + " " + zone;
    });

    // Long chat messages start folded; the button unfolds them.
    document.querySelectorAll("button.unfold").forEach(function (btn) {
      btn.addEventListener("click", function () {
        var text = btn.previousElementSibling;
        if (!text) return;
        var folded = text.classList.toggle("folded");
        btn.textContent = folded ? btn.dataset.more || btn.textContent : "Show less";
      });
      btn.dataset.more = btn.textContent;
    });

    // Forms that delete something ask first.
    document.querySelectorAll("form.confirm").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        if (!window.confirm(form.dataset.confirm || "Are you sure?")) ev.preventDefault();
      });
    });

    // Editing the custom time range switches the filter form from the
    // preset to that range.
    var preset = document.getElementById("range-preset");
    var custom = document.getElementById("range-custom");
    document.querySelectorAll('#filters input[type="datetime-local"]').forEach(function (input) {
      input.addEventListener("input", function () {
        if (preset) preset.disabled = true;
        if (custom) custom.disabled = false;
      });
    });

    // The evaluator picker's filter box.
    document.querySelectorAll(".picker").forEach(function (picker) {
      var box = picker.querySelector(".picker-filter");
      if (!box) return;
      box.addEventListener("input", function () {
        var q = box.value.trim().toLowerCase();
        picker.querySelectorAll(".pick").forEach(function (item) {
          item.hidden = q !== "" && item.textContent.toLowerCase().indexOf(q) < 0;
        });
      });
    });

    // Auto-refresh of the monitors page.
    var refresh = document.getElementById("auto-refresh");
    if (refresh && refresh.dataset.refresh) {
      var seconds = parseInt(refresh.dataset.refresh, 10);
      if (seconds > 0) window.setTimeout(function () { window.location.reload(); }, seconds * 1000);
    }

    // The review queue's keys: 1/0 set the first yes/no tag, Enter saves,
    // s skips (not while typing in a field).
    var labelForm = document.getElementById("label-form");
    if (labelForm) {
      var sent = false;
      labelForm.addEventListener("submit", function (ev) {
        if (sent) ev.preventDefault(); // one label per span, however the form is sent
        sent = true;
      });
      document.addEventListener("keydown", function (ev) {
        if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
        var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName) && ev.target.type !== "radio" && ev.target.type !== "checkbox";
        if (typing) return;
        var first = labelForm.querySelector('.tag-field[data-type="boolean"]');
        if ((ev.key === "1" || ev.key === "0") && first) {
          var radio = first.querySelector('input[value="' + (ev.key === "1" ? "true" : "false") + '"]');
          if (radio) { radio.checked = true; radio.focus(); ev.preventDefault(); }
        } else if (ev.key === "Enter") {
          ev.preventDefault();
          document.getElementById("save-label").click();
        } else if (ev.key === "s") {
          ev.preventDefault();
          document.getElementById("skip-span").click();
        }
      });
    }

    // A CSV file chosen for upload is read into the form's text box.
    var csvFile = document.getElementById("csv-file");
    var csvText = document.getElementById("csv-text");
    if (csvFile && csvText && window.FileReader) {
      csvFile.addEventListener("change", function () {
        var f = csvFile.files && csvFile.files[0];
        if (!f) return;
        var reader = new FileReader();
        reader.onload = function () { csvText.value = String(reader.result); };
        reader.readAsText(f);
      });
    }

    // Chart bars and histogram bins are links; keyboard focus shows their
    // title like a hover does.
    document.querySelectorAll("svg a[data-tip]").forEach(function (a) {
      a.addEventListener("focus", function () { a.classList.add("focus"); });
      a.addEventListener("blur", function () { a.classList.remove("focus"); });
    });
  });
})();
