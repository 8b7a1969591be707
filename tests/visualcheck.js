/* The visual check's measures, run in the page by tests/visual.py (Playwright's evaluate): a list of findings. */
([plotMin, plotShare]) => {
  const found = [];
  const name = (el) => {
    const id = el.id ? '#' + el.id : '';
    const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '';
    return el.tagName.toLowerCase() + id + cls;
  };
  const shown = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const root = document.documentElement;
  // 1. The page itself never scrolls sideways.
  if (root.scrollWidth > root.clientWidth + 1) {
    const wide = [...document.body.querySelectorAll('*')].filter(el => shown(el) &&
      el.getBoundingClientRect().right > root.clientWidth + 1 && !el.closest('[data-scrolls]'))
      .filter(el => !el.parentElement || el.parentElement.getBoundingClientRect().right <= root.clientWidth + 1);
    found.push(`page is ${root.scrollWidth} px wide in a ${root.clientWidth} px window: ` +
      wide.slice(0, 4).map(el => `${name(el)} to ${Math.round(el.getBoundingClientRect().right)} px`).join(', '));
  }
  // 2. Text cut off by a box that hides what overflows (an input's own scrolling aside).
  for (const el of document.body.querySelectorAll('*')) {
    if (!shown(el) || ['CANVAS', 'INPUT', 'TEXTAREA', 'SELECT', 'svg', 'IMG'].includes(el.tagName)) continue;
    if (el.clientWidth <= 1 && el.clientHeight <= 1) continue; // visually hidden on purpose (for screen readers)
    const s = getComputedStyle(el);
    const hides = ['hidden', 'clip'].includes(s.overflowX) || s.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim())
      found.push(`text cut off in ${name(el)}: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
  }
  // 3. A table cell's text stays in its cell (else it is drawn over its neighbour).
  for (const cell of document.querySelectorAll('th, td')) {
    if (!shown(cell) || !cell.textContent.trim()) continue;
    const box = cell.getBoundingClientRect();
    const range = document.createRange(); range.selectNodeContents(cell);
    const text = range.getBoundingClientRect();
    if (text.width && (text.left < box.left - 1 || text.right > box.right + 1))
      found.push(`text of ${name(cell)} "${cell.textContent.trim().slice(0, 30)}" spills out of its cell ` +
        `(${Math.round(text.left)}..${Math.round(text.right)} in ${Math.round(box.left)}..${Math.round(box.right)})`);
  }
  // 4. The controls of a bar never lie on each other.
  for (const bar of document.querySelectorAll('header, nav, .graph-tools, .crumbs, #module, .submit-row, figcaption')) {
    const parts = [...bar.querySelectorAll('a, button, input, select, label, span.range-label')].filter(shown);
    for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
      if (parts[i].contains(parts[j]) || parts[j].contains(parts[i])) continue;
      const a = parts[i].getBoundingClientRect(), b = parts[j].getBoundingClientRect();
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 2 && h > 2) found.push(`${name(parts[i])} "${parts[i].textContent.trim().slice(0, 20)}" overlaps ` +
        `${name(parts[j])} "${parts[j].textContent.trim().slice(0, 20)}" in ${name(bar)}`);
    }
  }
  // 5. Every chart drawn: a plot of a sensible height, its tick labels inside the canvas and told apart.
  let charts = 0;
  for (const canvas of document.querySelectorAll('canvas')) {
    const chart = window.Chart && Chart.getChart(canvas);
    if (!chart || !shown(canvas)) continue;
    charts += 1;
    const where = name(canvas.closest('figure') || canvas) + ' "' +
      ((canvas.closest('figure') || {}).querySelector?.('figcaption')?.textContent || '').trim().slice(0, 40) + '"';
    const plot = chart.chartArea.bottom - chart.chartArea.top;
    if (plot < plotMin || plot < plotShare * chart.height)
      found.push(`${where}: plot ${Math.round(plot)} px high in a ${chart.height} px chart`);
    const ctx = chart.ctx;
    for (const scale of Object.values(chart.scales)) {
      if (!scale.options.display) continue;
      const labels = scale.getLabelItems(chart.chartArea);
      for (const item of labels) {
        ctx.save(); ctx.font = item.font.string;
        const width = Math.max(...[].concat(item.label).map(t => ctx.measureText(String(t)).width));
        ctx.restore();
        const [x] = item.options.translation;
        const align = item.options.textAlign;
        const left = align === 'right' ? x - width : align === 'center' ? x - width / 2 : x;
        if (left < -1 || left + width > chart.width + 1)
          found.push(`${where}: ${scale.id} label "${item.label}" outside the canvas (${Math.round(left)}..${Math.round(left + width)} of ${chart.width})`);
      }
      const texts = labels.map(item => String(item.label));
      const twice = texts.filter((t, i) => texts.indexOf(t) !== i);
      if (twice.length) found.push(`${where}: ${scale.id} ticks read the same: ${texts.join(', ')}`);
    }
  }
  // 5b. A time axis spans the page's range (a day's chart is not six minutes of it).
  const range = window.MonitorRange && MonitorRange.bounds();
  for (const canvas of document.querySelectorAll('canvas')) {
    const chart = window.Chart && Chart.getChart(canvas);
    const x = chart && chart.scales.x;
    if (!x || x.type !== 'time' || !range || document.getElementById('path')) continue; // the path: its own window
    const span = range.end - range.start, slack = Math.max(0.02 * span, 120000);
    if (Math.abs(x.min - range.start) > slack || Math.abs(x.max - range.end) > slack)
      found.push(`${name(canvas.closest('figure') || canvas)}: time axis ${new Date(x.min).toISOString()}..` +
        `${new Date(x.max).toISOString()} of a range ${new Date(range.start).toISOString()}..${new Date(range.end).toISOString()}`);
  }
  // 6. The heatmap: drawn at its element's size in device pixels, its time labels inside it.
  for (const canvas of document.querySelectorAll('figure.heatmap canvas')) {
    if (!canvas._heatmap && canvas.dataset.rows) found.push('heatmap: no time axis or hover (nothing known of its cells)');
    const want = Math.round(canvas.clientWidth * (window.devicePixelRatio || 1));
    if (canvas.dataset.rows && Math.abs(canvas.width - want) > 1)
      found.push(`heatmap drawn ${canvas.width} px wide, stretched to ${want} device px`);
    const labels = (canvas._heatmap && canvas._heatmap.labels) || [];
    if (canvas.dataset.rows && canvas._heatmap && labels.length < 2) found.push('heatmap: fewer than two time labels');
    for (const l of labels) if (l.left < 0 || l.right > canvas.clientWidth) found.push(`heatmap label "${l.text}" cut off`);
  }
  // 7. Titles in words: no field name ("polls_per_min"), no unit said twice ("IOPS (IOPS)").
  for (const el of document.querySelectorAll('h1, h2, h3, figcaption, th')) {
    const text = (el.firstChild && el.firstChild.nodeType === 3 ? el.firstChild.textContent : el.textContent).trim();
    if (/^[a-z0-9]+(_[a-z0-9]+)+$/.test(text)) found.push(`${name(el)} titled by a field name: "${text}"`);
    const twice = /(^|\s)(\S+) \(\2\)/.exec(el.textContent);
    if (twice) found.push(`${name(el)} says its unit twice: "${el.textContent.trim().slice(0, 50)}"`);
  }
  return {found, charts};
}
