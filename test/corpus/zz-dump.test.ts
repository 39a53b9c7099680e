import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { fileLoaders, loadFile } from '/work/main/adapters/loaders/index.js';
it('dump', async () => {
  for (const f of (process.env.FILES ?? '').split(',')) {
    const d = await loadFile(fileLoaders(), { bytes: readFileSync(f), fileName: f });
    console.log('=====', f, d.mimeType, d.title, d.totalPages, JSON.stringify(d.metadata));
    for (const s of d.sections) console.log(`--- page=${s.pageNumber} label=${s.label}\n${s.text.slice(0, Number(process.env.MAX ?? 1500))}`);
  }
});
