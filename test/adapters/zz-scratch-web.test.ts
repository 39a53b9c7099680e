import { it } from 'vitest';
import { parseHTML } from 'linkedom';
import { extractHtml } from '../../adapters/web/index.js';
import { visibleText } from '../../adapters/web/html-text.js';
it('perf', () => {
  const block = '<div class="card"><h2>Heading</h2><p class="text">Some paragraph text with <a href="/x">a link</a> and more words to make it longer.</p><ul><li>one</li><li>two</li></ul></div>';
  for (const size of [100_000, 1_000_000, 3_000_000]) {
    const html = `<html><head><title>T</title></head><body><nav class="menu"><a href="/a">A</a></nav><main>${block.repeat(Math.ceil(size / block.length))}</main><div class="sidebar">side</div></body></html>`;
    let t = performance.now();
    const { document } = parseHTML(html) as any;
    const parse = performance.now() - t; t = performance.now();
    document.querySelectorAll('script, style, nav, [hidden], [aria-hidden="true"]');
    const qsa = performance.now() - t; t = performance.now();
    document.querySelectorAll('[class], [id]');
    const qsa2 = performance.now() - t; t = performance.now();
    visibleText(document.body);
    const walk = performance.now() - t; t = performance.now();
    const result = extractHtml(html, 'https://s.test/');
    console.log(size, { parse, qsa, qsa2, walk, total: performance.now() - t }, result.text.length);
  }
});
