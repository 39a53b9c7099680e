import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** What `npm run build` writes next to the assets (see ui/build.mjs). */
export interface UiManifest {
  /** The console's entry script, e.g. `assets/console-3f2a1c.js`. */
  script: string;
  /** Its stylesheets, in order. */
  styles: string[];
  /** Every file under dist/ui the server may answer with (paths relative to dist/ui). */
  files: string[];
}

/** One asset, kept in memory: the console is a few hundred KB, read once per handler. */
export interface UiAsset {
  body: Buffer;
  gzipped: Buffer | null;
  contentType: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

/**
 * dist/ui, found from this module's own place: compiled it is dist/adapters/http/ui (assets at
 * dist/ui); run from source (tests) it is adapters/http/ui (assets at dist/ui of the checkout).
 */
export function defaultAssetDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '../../../ui'), join(here, '../../../dist/ui')];
  return candidates.find((dir) => existsSync(join(dir, 'manifest.json'))) ?? (candidates[0] as string);
}

export class UiAssets {
  readonly manifest: UiManifest;
  private readonly cache = new Map<string, UiAsset>();

  constructor(private readonly dir: string) {
    const manifestPath = join(dir, 'manifest.json');
    if (!existsSync(manifestPath)) {
      throw new TypeError(`The web console's assets are missing (${manifestPath}); run \`npm run build\` first`);
    }
    this.manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as UiManifest;
  }

  /** A file listed in the manifest, or null: request paths never reach the file system otherwise. */
  get(relativePath: string): UiAsset | null {
    if (!this.manifest.files.includes(relativePath)) return null;
    let asset = this.cache.get(relativePath);
    if (!asset) {
      const body = readFileSync(join(this.dir, relativePath));
      const type = TYPES[relativePath.slice(relativePath.lastIndexOf('.'))] ?? 'application/octet-stream';
      asset = { body, gzipped: compressible(type) ? gzipSync(body, { level: 9 }) : null, contentType: type, etag: etagOf(body) };
      this.cache.set(relativePath, asset);
    }
    return asset;
  }
}

export function etagOf(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

function compressible(type: string): boolean {
  return type.startsWith('text/') || type.includes('json') || type.includes('svg');
}
