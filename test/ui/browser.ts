import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Screenshots of each step; the README's images are copied from here. */
export const SHOTS = join(ROOT, '.tmp/ui');

/** Debian's chromium (`apt-get install chromium`), or RAGDESK_CHROMIUM. */
const CHROMIUM = process.env.RAGDESK_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export function browserSkipReason(): string | null {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set RAGDESK_CHROMIUM)`;
  return null;
}

export interface Browser {
  context: BrowserContext;
  /** A new tab that records dialogs (none may open: injection would show as one) and page errors. */
  page(options?: { width?: number; height?: number }): Promise<Page & { dialogs: string[]; errors: string[] }>;
  close(): Promise<void>;
}

/**
 * Chromium headless with a fresh profile. Background networking off: chromium's own connections
 * (updates, safe browsing) have nowhere to go on a machine without internet, and with them on its
 * page connections fail.
 */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ragdesk-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1024, height: 640 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    async page(options = {}) {
      const page = await context.newPage();
      if (options.width) await page.setViewportSize({ width: options.width, height: options.height ?? 640 });
      const dialogs: string[] = [];
      const errors: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => errors.push(error.message));
      return Object.assign(page, { dialogs, errors });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}

/**
 * A viewport screenshot README.md shows: written to docs/images/<name>.png (small: the viewport,
 * not the whole page), with `subject` scrolled to the middle when given.
 */
export async function readmeShot(page: Page, name: string, subject?: Locator): Promise<void> {
  mkdirSync(join(ROOT, 'docs/images'), { recursive: true });
  // Runs in the page; this file is compiled without the DOM's types.
  await subject?.evaluate((element) =>
    (element as unknown as { scrollIntoView(options: object): void }).scrollIntoView({ block: 'center' }),
  );
  await page.screenshot({ path: join(ROOT, 'docs/images', `${name}.png`) });
}

/** Milliseconds from navigation start to a `performance.mark` the front end set, or null. */
export async function markTime(page: Page, name: string): Promise<number | null> {
  return page.evaluate((mark) => performance.getEntriesByName(mark)[0]?.startTime ?? null, name);
}

/** Total gzipped size of the built assets (what a first visit downloads at most). */
export function assetSizes(): { files: number; gzippedBytes: number } {
  const dir = join(ROOT, 'dist/ui');
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && entry.name !== 'manifest.json',
  );
  return {
    files: files.length,
    gzippedBytes: files.reduce((sum, entry) => sum + gzipSync(readFileSync(join(entry.parentPath, entry.name)), { level: 9 }).length, 0),
  };
}
