/**
 * Hand-written SVG line charts (no plotting package): panels side by side, x linear (corpus size),
 * y logarithmic (rates and latencies span several decades), one coloured line per series.
 */

export interface Series {
  /** Legend entry and colour: several series (a peer's modes) can share one. */
  group: string;
  points: readonly { x: number; y: number }[];
  /** Dashed line (e.g. a second mode of the same peer). */
  dashed?: boolean;
}

export interface Panel {
  title: string;
  yLabel: string;
  series: readonly Series[];
}

const PALETTE = ['#d62728', '#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#17becf', '#bcbd22'];
const PANEL_WIDTH = 420;
const PANEL_HEIGHT = 300;
const MARGIN = { left: 64, right: 16, top: 36, bottom: 44 };
const LEGEND_ROW = 18;

/** Greedy word wrap: SVG text does not wrap by itself. */
function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** 1, 2, 5 × 10^n ticks covering [min, max]. */
function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let exponent = Math.floor(Math.log10(min)); exponent <= Math.ceil(Math.log10(max)); exponent++) {
    for (const mantissa of [1, 2, 5]) {
      const value = mantissa * 10 ** exponent;
      if (value >= min * 0.999 && value <= max * 1.001) ticks.push(value);
    }
  }
  return ticks;
}

function formatNumber(value: number): string {
  if (value >= 1000) return `${Number((value / 1000).toPrecision(3))}k`;
  if (value >= 1) return String(Number(value.toPrecision(3)));
  return String(Number(value.toPrecision(2)));
}

/** A stable colour per group across panels. */
function colourFor(groups: readonly string[], group: string): string {
  return PALETTE[Math.max(0, [...new Set(groups)].indexOf(group)) % PALETTE.length] as string;
}

function panelSvg(panel: Panel, offsetX: number, xs: readonly number[], groups: readonly string[]): string {
  const values = panel.series.flatMap((series) => series.points.map((point) => point.y)).filter((y) => y > 0 && Number.isFinite(y));
  const parts: string[] = [];
  const plotW = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x0 = offsetX + MARGIN.left;
  const y0 = MARGIN.top;
  parts.push(`<text x="${offsetX + PANEL_WIDTH / 2}" y="20" text-anchor="middle" font-weight="bold">${escapeXml(panel.title)}</text>`);
  parts.push(`<rect x="${x0}" y="${y0}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  if (values.length === 0) return parts.join('\n');
  const minY = 10 ** Math.floor(Math.log10(Math.min(...values)));
  const maxY = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  const minX = Math.min(0, ...xs);
  const maxX = Math.max(...xs);
  const sx = (x: number) => x0 + ((x - minX) / (maxX - minX || 1)) * plotW;
  const sy = (y: number) => y0 + plotH - ((Math.log10(y) - Math.log10(minY)) / (Math.log10(maxY) - Math.log10(minY) || 1)) * plotH;
  for (const tick of logTicks(minY, maxY)) {
    const y = sy(tick).toFixed(1);
    parts.push(`<line x1="${x0}" y1="${y}" x2="${x0 + plotW}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${x0 - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${formatNumber(tick)}</text>`);
  }
  for (const x of xs) {
    parts.push(`<line x1="${sx(x).toFixed(1)}" y1="${y0 + plotH}" x2="${sx(x).toFixed(1)}" y2="${y0 + plotH + 4}" stroke="#999"/>`);
    parts.push(`<text x="${sx(x).toFixed(1)}" y="${y0 + plotH + 16}" text-anchor="middle">${formatNumber(x)}</text>`);
  }
  parts.push(`<text x="${x0 + plotW / 2}" y="${y0 + plotH + 34}" text-anchor="middle">chunks in the index</text>`);
  parts.push(
    `<text x="${offsetX + 14}" y="${y0 + plotH / 2}" text-anchor="middle" transform="rotate(-90 ${offsetX + 14} ${y0 + plotH / 2})">${escapeXml(panel.yLabel)} (log)</text>`,
  );
  for (const series of panel.series) {
    const points = series.points.filter((point) => point.y > 0 && Number.isFinite(point.y));
    if (points.length === 0) continue;
    const colour = colourFor(groups, series.group);
    const path = points.map((point, i) => `${i === 0 ? 'M' : 'L'}${sx(point.x).toFixed(1)},${sy(point.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const point of points)
      parts.push(`<circle cx="${sx(point.x).toFixed(1)}" cy="${sy(point.y).toFixed(1)}" r="3" fill="${colour}"/>`);
  }
  return parts.join('\n');
}

/** Panels in one row with a shared legend underneath (one colour per group) and free-text notes below it. */
export function chartSvg(title: string, panels: readonly Panel[], notes: readonly string[] = []): string {
  const xs = [...new Set(panels.flatMap((panel) => panel.series.flatMap((series) => series.points.map((point) => point.x))))].sort(
    (a, b) => a - b,
  );
  const allSeries = panels.flatMap((panel) => panel.series);
  const groups = allSeries.map((series) => series.group);
  const legend: { name: string; colour: string; dashed: boolean }[] = [...new Set(groups)].map((group) => ({
    name: group,
    colour: colourFor(groups, group),
    dashed: false,
  }));
  if (allSeries.some((series) => series.dashed)) legend.push({ name: 'dashed: keyword-only (lexical) mode', colour: '#666', dashed: true });
  const width = PANEL_WIDTH * panels.length;
  const legendColumns = 3;
  const legendRows = Math.ceil(legend.length / legendColumns);
  const legendTop = PANEL_HEIGHT + 40;
  const notesTop = legendTop + legendRows * LEGEND_ROW + 12;
  // ~6 px per character at 11 px.
  const noteLines = notes.flatMap((note) => wrap(note, Math.floor((width - 40) / 6)));
  const height = notesTop + noteLines.length * LEGEND_ROW + 8;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<g transform="translate(0, 24)">`,
    ...panels.map((panel, i) => panelSvg(panel, i * PANEL_WIDTH, xs, groups)),
    `</g>`,
    `<text x="${width / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  legend.forEach((series, i) => {
    const x = 20 + (i % legendColumns) * (width / legendColumns);
    const y = legendTop + Math.floor(i / legendColumns) * LEGEND_ROW;
    parts.push(
      `<line x1="${x}" y1="${y}" x2="${x + 28}" y2="${y}" stroke="${series.colour}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    parts.push(`<text x="${x + 34}" y="${y}" dominant-baseline="middle">${escapeXml(series.name)}</text>`);
  });
  noteLines.forEach((note, i) => parts.push(`<text x="20" y="${notesTop + i * LEGEND_ROW}" fill="#444">${escapeXml(note)}</text>`));
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
