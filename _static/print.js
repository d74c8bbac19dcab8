// The printed book (see print.css): a code cell's output folded behind "Show code cell output"
// (myst-nb's hide-output, or hide-cell) is part of the text, so a print opens it; a folded
// source ("Show code cell source") stays folded. Closed again after the print.
(function () {
  let opened = [];
  window.addEventListener("beforeprint", function () {
    const folded = document.querySelectorAll(
      "details.hide.below-input:not([open]), .tag_hide-cell details.hide:not([open])");
    opened = Array.from(folded);
    for (const details of opened) details.open = true;
  });
  window.addEventListener("afterprint", function () {
    for (const details of opened) details.open = false;
    opened = [];
  });
})();
