// The printed book (see print.css): a code cell's output folded behind "Show code cell
// output(s)" (myst-nb's hide-output, below its source or, with remove-input, alone; or
// hide-cell) is part of the text, so a print opens it, as it opens a long table that fedlib
// folds in pieces (fedlib.table.folded); a folded source ("Show code cell source") stays
// folded. A block print.css keeps whole on one page but taller than a page is
// marked print-tall, which lets it break: kept whole, Chromium would push it to a fresh page
// and leave the page before it empty. A table's cells wrap between words; a table still wider
// than the text column is marked print-narrow, whose cells may also wrap inside a word (had
// every table that licence, the widths of a table's columns would follow its longest texts
// and squeeze its short columns to a few letters). The execution table's status marks (emoji, which the
// print fonts lack: they would print as empty boxes) print as the text font's check and cross
// marks. All undone after the print.
(function () {
  // The text column's height on a printed A4 page, in CSS pixels: 11.69 in less the PDF
  // script's top and bottom margins (0.55 and 0.75 in), at 96 px per inch. A page whose content
  // is wider than the paper (a margin note) is shrunk to fit, which makes a page that much
  // taller in CSS pixels.
  const PAGE_HEIGHT_PX = 997;
  const KEPT_WHOLE = ".cell, figure, table, .proof, .admonition, div.highlight";
  const MARKS = {"\u2705": "\u2713", "\u274c": "\u2717"};
  const EMOJI = /[\u2705\u274c]/g;
  let opened = [];
  let tall = [];
  let narrow = [];
  let marked = [];
  window.addEventListener("beforeprint", function () {
    const folded = document.querySelectorAll(
      "details.hide.below-input:not([open]), details.hide.above-output:not([open]), " +
      ".tag_hide-cell details.hide:not([open]), details.fedlib-fold:not([open])");
    opened = Array.from(folded);
    for (const details of opened) details.open = true;
    const column = (document.querySelector("main") || document.body).getBoundingClientRect();
    narrow = Array.from(document.querySelectorAll("main table")).filter(
      (table) => table.getBoundingClientRect().right > column.right);
    for (const table of narrow) table.classList.add("print-narrow");
    const root = document.documentElement;
    const page = PAGE_HEIGHT_PX * Math.max(1, root.scrollWidth / root.clientWidth);
    tall = Array.from(document.querySelectorAll(KEPT_WHOLE)).filter(
      (el) => el.getBoundingClientRect().height > page);
    for (const el of tall) el.classList.add("print-tall");
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const printed = node.data.replace(EMOJI, (emoji) => MARKS[emoji]);
      if (printed === node.data) continue;
      marked.push([node, node.data]);
      node.data = printed;
    }
  });
  window.addEventListener("afterprint", function () {
    for (const details of opened) details.open = false;
    for (const el of tall) el.classList.remove("print-tall");
    for (const table of narrow) table.classList.remove("print-narrow");
    for (const [node, text] of marked) node.data = text;
    opened = [];
    tall = [];
    narrow = [];
    marked = [];
  });
})();
