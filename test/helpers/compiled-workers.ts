import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'vite';

/** `new URL('./name.js', import.meta.url)`: how an adapter names its worker module. */
const WORKER_URL = /new URL\((['"])(\.\/[\w.-]+\.js)\1, import\.meta\.url\)/g;

/**
 * The tests run the TypeScript sources, and Node 20 cannot start a `.ts` worker: a source module's
 * `new URL('./x-worker.js', import.meta.url)`, whose `.js` does not exist beside it, is pointed at
 * the compiled file at the same place under `dist` (which the global setup builds). The library
 * itself knows nothing of the repository's layout.
 */
export function compiledWorkers(root: string, dist = join(root, 'dist')): Plugin {
  return {
    name: 'ragdesk:compiled-workers',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?', 1)[0] as string;
      if (!file.endsWith('.ts') || !file.startsWith(root + sep) || file.startsWith(dist + sep) || file.includes(`${sep}node_modules${sep}`))
        return null;
      if (!code.includes('import.meta.url')) return null;
      const compiledFolder = pathToFileURL(join(dist, relative(root, dirname(file))) + sep).href;
      let changed = false;
      const rewritten = code.replace(WORKER_URL, (match, _quote: string, name: string) => {
        if (existsSync(join(dirname(file), name))) return match;
        changed = true;
        return `new URL(${JSON.stringify(name)}, ${JSON.stringify(compiledFolder)})`;
      });
      return changed ? { code: rewritten, map: null } : null;
    },
  };
}
