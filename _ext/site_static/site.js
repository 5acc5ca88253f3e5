/* Site-wide fixes (see _ext/site_fixes.py). */
(function () {
  "use strict";
  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  // pydata-sphinx-theme #2451: only the first .primary-toggle / .secondary-toggle (a hidden one in the
  // theme's navbar) has the handlers; forward clicks on the visible ones to it.
  ready(function () {
    [".primary-toggle", ".secondary-toggle"].forEach(function (selector) {
      var all = Array.prototype.slice.call(document.querySelectorAll(selector));
      var bound = all[0];
      all.slice(1).forEach(function (button) {
        button.addEventListener("click", function (event) {
          event.preventDefault();
          event.stopImmediatePropagation();
          bound.click();
        }, true);
      });
    });
  });

  // Inline formulas wider than their line become small horizontal scroll boxes (a browser does not break
  // inline MathML); display formulas already scroll by CSS.
  function markWideInlineMath() {
    document.querySelectorAll("span.math").forEach(function (m) {
      var parent = m.parentElement;
      while (parent && getComputedStyle(parent).display === "inline") parent = parent.parentElement;
      if (parent && m.getBoundingClientRect().width > parent.clientWidth) m.classList.add("sa-wide-math");
    });
  }
  ready(markWideInlineMath);
})();
