// Runs in a built page (selenium execute_script): returns what a reader would stumble on.
const problems = [];
const outside = (el) => !el.closest('pre, code, script, style, .highlight, textarea');
const walker = document.createTreeWalker(document.querySelector('main') || document.body,
                                         NodeFilter.SHOW_TEXT);
let node;
while ((node = walker.nextNode())) {
  const text = node.textContent;
  if (!outside(node.parentElement)) continue;
  for (const token of ['$$', '\\begin{', '\\[', '\\(', '\\frac', '\\sum']) {
    if (text.includes(token)) { problems.push('raw TeX ' + token + ': ' + text.trim().slice(0, 80)); break; }
  }
  // fedlib's plain notation (Re^(tau-1)) belongs in code and terminals: a table shows the
  // paper's (fedlib.viz.plain_math).
  if (text.includes('^(')) problems.push('plain-text mathematics ^(: ' + text.trim().slice(0, 80));
}
for (const img of document.querySelectorAll('main img')) {
  if (!img.complete || img.naturalWidth === 0) problems.push('broken image: ' + img.src);
}
for (const el of document.querySelectorAll('.problematic, .xref.missing')) {
  problems.push('undefined cross-reference: ' + el.textContent.trim().slice(0, 60));
}
for (const el of document.querySelectorAll('.output.traceback, .output.error, .cell_output .traceback')) {
  problems.push('error output cell: ' + el.textContent.trim().slice(0, 120));
}
// A table must fit its column: no clipped or scrolling part (every ancestor that clips it, and
// the window, holds its whole width), and nothing past the article's text column. (Measured
// against the window only, a table spilling into the empty right margin passed.)
const article = document.querySelector('main article, main .bd-article') || document.querySelector('main');
const columnRight = article ? article.getBoundingClientRect().right -
  parseFloat(getComputedStyle(article).paddingRight || '0') : document.documentElement.clientWidth;
// A cell tagged full-width is laid out across the margin on purpose (the theme's design): its
// own box is its column. Anything else keeps to the article's text column.
const columnOf = (el) => {
  const wide = el.closest('.tag_full-width, .full-width');
  return Math.min(document.documentElement.clientWidth,
                  wide ? wide.getBoundingClientRect().right : columnRight);
};
for (const table of document.querySelectorAll('main table')) {
  const box = table.getBoundingClientRect();
  if (box.width === 0) continue;
  let clipped = box.right > columnOf(table) + 1;
  for (let el = table.parentElement; el && !clipped; el = el.parentElement) {
    if (getComputedStyle(el).overflowX === 'visible') continue;
    const frame = el.getBoundingClientRect();
    clipped = box.left < frame.left - 1 || box.right > frame.right + 1;
  }
  if (clipped) {
    const head = (table.querySelector('th, td') || table).textContent.trim().slice(0, 40);
    problems.push('table wider than its column (' + Math.round(box.width) + ' px): ' + head);
  }
  // A table longer than two screens buries what follows it: fold it in pieces a reader can
  // choose among (fedlib.table.folded).
  if (box.height > 2 * window.innerHeight && !table.parentElement.closest('table') &&
      !table.closest('details:not([open])')) {
    const head = (table.querySelector('th, td') || table).textContent.trim().slice(0, 40);
    problems.push('table of ' + (box.height / window.innerHeight).toFixed(1) +
                  ' screens: ' + head);
  }
}
// Code and printed output wrap rather than scroll sideways: a reader of a scrolled block sees
// half a line and must find the scroll bar.
for (const pre of document.querySelectorAll('main pre')) {
  if (pre.clientWidth > 0 && pre.scrollWidth > pre.clientWidth + 1) {
    const longest = pre.textContent.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
    problems.push('code scrolls sideways (' + (pre.scrollWidth - pre.clientWidth) + ' px): ' +
                  longest.trim().slice(0, 60));
  }
}
// A widget (an explorer's text field, slider or output) keeps to its column too.
for (const widget of document.querySelectorAll('main .jupyter-widgets')) {
  const box = widget.getBoundingClientRect();
  if (box.width > 0 && box.right > columnOf(widget) + 1) {
    problems.push('widget wider than its column (' + Math.round(box.right - columnOf(widget)) +
                  ' px past it): ' + (widget.textContent.trim() || widget.className).slice(0, 40));
  }
}
// Text (a list of provenance, a paragraph) must not run past its block: a long unbreakable
// word or path spills into the margin.
for (const el of document.querySelectorAll('main li, main dd, main p, main td')) {
  if (el.closest('pre, .highlight, table table, mjx-container')) continue;
  if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 &&
      getComputedStyle(el).overflowX === 'visible') {
    problems.push('text wider than its column (' + (el.scrollWidth - el.clientWidth) + ' px): ' +
                  el.textContent.trim().slice(0, 60));
  }
}
// Every figure has a caption: an image of a cell's output sits in a <figure> with a
// <figcaption>, or (an explorer's figure inside a widget) in a cell with an explorer caption.
for (const img of document.querySelectorAll('main .cell_output img, main figure img')) {
  const figure = img.closest('figure');
  if (figure && figure.querySelector('figcaption')) continue;
  const cell = img.closest('.cell');
  if (img.closest('.jupyter-widgets, .widget-output') && cell &&
      cell.querySelector('.explorer-caption')) continue;
  problems.push('figure without a caption: ' + (img.getAttribute('alt') || img.src).slice(-60));
}
const widgets = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]');
const figures = document.querySelectorAll('main .cell_output img, main figure img, main svg.figure');
const widgetImages = document.querySelectorAll('.jupyter-widgets img, .widget-output img');
return {problems: problems, figures: figures.length, widgets: widgets.length,
        widget_images: widgetImages.length,
        mathjax: document.querySelectorAll('mjx-container').length,
        title: document.title};
