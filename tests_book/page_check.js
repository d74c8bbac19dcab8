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
const widgets = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]');
const figures = document.querySelectorAll('main .cell_output img, main figure img, main svg.figure');
const widgetImages = document.querySelectorAll('.jupyter-widgets img, .widget-output img');
return {problems: problems, figures: figures.length, widgets: widgets.length,
        widget_images: widgetImages.length,
        mathjax: document.querySelectorAll('mjx-container').length,
        title: document.title};
