// Runs in a built page laid out for print (media emulated as print, beforeprint fired):
// returns the screen chrome a printed page would still show (a widget's controls among it), and the folded outputs it would
// leave out. scripts/build_pdf.py refuses to print a page with any.
const problems = [];
const main = document.querySelector('main') || document.body;
const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
const label = (el) => (el.textContent || el.getAttribute('aria-label') || el.className || el.tagName)
  .toString().replace(/\s+/g, ' ').trim().slice(0, 60);
const chrome = ['summary', 'button', 'input', 'select', 'textarea', '.widget-slider',
                '.widget-dropdown', '.widget-text', '.widget-checkbox', '.widget-tab-bar',
                '.widget-toggle-buttons', '.toggle-button', '.headerlink',
                '.bd-sidebar-primary', '.bd-sidebar-secondary', '.bd-header', '.prev-next-area'];
for (const selector of chrome) {
  for (const el of document.querySelectorAll(selector)) {
    // A fold of fedlib.table.folded is content: its summary line heads the group it opens.
    if (selector === 'summary' && el.parentElement.matches('details.fedlib-fold')) continue;
    if (shown(el)) problems.push('printed screen chrome (' + selector + '): ' + label(el));
  }
}
// Folded outputs (myst-nb's hide-output) are part of the text: open in print.
for (const details of main.querySelectorAll('details.hide.below-input, details.hide.above-output')) {
  if (!details.open) problems.push('a folded output is left out of the print: ' + label(details));
}
// Code must wrap, not scroll out of the page.
for (const pre of main.querySelectorAll('pre')) {
  if (shown(pre) && pre.scrollWidth > pre.clientWidth + 2) {
    problems.push('code cut off at the page edge: ' + label(pre));
  }
}
// Tables and figures fit the printed text column.
const column = main.getBoundingClientRect();
for (const el of main.querySelectorAll('table, img, svg, mjx-container[display="true"]')) {
  if (!shown(el)) continue;
  const box = el.getBoundingClientRect();
  if (box.width > 0 && (box.right > column.right + 2 || box.left < column.left - 2)) {
    problems.push(el.tagName.toLowerCase() + ' wider than the printed column (' +
                  Math.round(box.width) + ' px of ' + Math.round(column.width) + '): ' + label(el));
  }
}
return problems;
