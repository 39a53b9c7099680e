import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../adapters/cli/demo.js';
import { tempDir } from '../helpers/setups.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('npm start demo', () => {
  it('indexes the project docs offline and answers from them, re-running incrementally', async () => {
    const temp = tempDir();
    try {
      const lines: string[] = [];
      const options = {
        dataDir: temp.dir,
        packageRoot: ROOT,
        queries: ['How do I set up and run the tests?'],
        write: (line: string) => lines.push(line),
      };
      await runDemo(options);
      const output = lines.join('\n');
      expect(output).toMatch(/Datastore "ragdesk-docs" .*: \d+ documents, \d+ chunks/);
      expect(output).toContain('? How do I set up and run the tests?');
      expect(output).toContain('[README.md]');

      lines.length = 0;
      await runDemo(options);
      const again = lines.join('\n');
      const count = (text: string) => /: (\d+) documents/.exec(text)?.[1];
      expect(count(again)).toBe(count(output));
    } finally {
      temp.remove();
    }
  });
});
