/**
 * bench:install — what `npm install ragdesk` costs a new app: wall time, the peak resident memory
 * of the install (its largest process, compilers included) and every C/C++ compiler call, by the
 * package that made it. Each tarball is installed into a fresh app in a temporary folder with the
 * registry's defaults; compilers are counted by shims placed first on PATH that log and run the
 * real ones.
 *
 *   npm run bench:install -- [--tarball before=<path.tgz>]... [--runs 1] [--result install]
 *
 * The current checkout is packed and measured as `current` (run `npm run build` first: bench:install
 * does). Give the tarball of an earlier version as `--tarball before=<path>` to compare both in the
 * same run, one after the other, on the same machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PACKAGE_ROOT, printTable, writeResult } from './lib/report.js';

const COMPILERS = ['cc', 'gcc', 'c++', 'g++', 'clang', 'clang++'];

interface InstallRun {
  label: string;
  seconds: number;
  peakMiB: number;
  compilerCalls: number;
  /** Compiler calls by the package whose folder they ran in. */
  compiledBy: Record<string, number>;
  packages: number;
}

function tarballArgs(argv: readonly string[]): { label: string; path: string }[] {
  const tarballs: { label: string; path: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--tarball') continue;
    const value = argv[i + 1] ?? '';
    const [label, path] = value.includes('=') ? (value.split('=', 2) as [string, string]) : [basename(value), value];
    if (!existsSync(path)) throw new Error(`--tarball ${value}: no such file`);
    tarballs.push({ label, path });
  }
  return tarballs;
}

/** A folder of compiler shims: each logs `<name>\t<cwd>` and runs the real compiler. */
function compilerShims(folder: string, log: string): void {
  mkdirSync(folder, { recursive: true });
  for (const name of COMPILERS) {
    const real = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (!real) continue;
    const shim = join(folder, name);
    writeFileSync(shim, `#!/bin/sh\nprintf '%s\\t%s\\n' ${name} "$PWD" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`);
    chmodSync(shim, 0o755);
  }
}

function packageOf(cwd: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(cwd);
  return match?.[1] ?? cwd;
}

function installOnce(label: string, tarball: string): InstallRun {
  const work = mkdtempSync(join(tmpdir(), 'ragdesk-install-'));
  try {
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'install-bench', private: true, type: 'module' }));
    const log = join(work, 'compilers.log');
    writeFileSync(log, '');
    compilerShims(join(work, 'bin'), log);
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}` };
    for (const key of Object.keys(env)) if (key.startsWith('npm_package_') || key === 'npm_config_userconfig') delete env[key];
    // Node's headers from the system, where they are (this machine cannot download them).
    if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
    const timing = join(work, 'time.txt');
    const started = performance.now();
    const install = spawnSync(
      '/usr/bin/time',
      ['-f', '%M', '-o', timing, 'npm', 'install', '--no-audit', '--no-fund', '--loglevel=error', tarball],
      { cwd: app, env, encoding: 'utf8' },
    );
    const seconds = (performance.now() - started) / 1000;
    if (install.status !== 0) throw new Error(`${label}: npm install failed\n${install.stderr.slice(-3000)}`);
    const peakKiB = Number(readFileSync(timing, 'utf8').trim().split('\n').pop());
    const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const compiledBy: Record<string, number> = {};
    for (const line of calls) {
      const name = packageOf(line.split('\t')[1] ?? '');
      compiledBy[name] = (compiledBy[name] ?? 0) + 1;
    }
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    return {
      label,
      seconds: Math.round(seconds * 10) / 10,
      peakMiB: Math.round(peakKiB / 1024),
      compilerCalls: calls.length,
      compiledBy,
      packages: Object.keys(lock.packages).filter((key) => key !== '').length,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function main(): void {
  const argv = process.argv.slice(2);
  const option = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const runs = Number(option('--runs') ?? 1);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs: a whole number from 1');
  const resultName = option('--result') ?? 'install';
  const packDir = mkdtempSync(join(tmpdir(), 'ragdesk-pack-'));
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: PACKAGE_ROOT, encoding: 'utf8' }),
    ) as {
      filename: string;
    }[];
    const tarballs = [...tarballArgs(argv), { label: 'current', path: join(packDir, packed[0]!.filename) }];
    const results: InstallRun[] = [];
    for (let run = 0; run < runs; run++) for (const { label, path } of tarballs) results.push(installOnce(label, path));
    printTable(
      'npm install <tarball> in a new app',
      results.map((result) => ({
        tarball: result.label,
        seconds: result.seconds,
        'peak MiB': result.peakMiB,
        'compiler calls': result.compilerCalls,
        'compiled by':
          Object.entries(result.compiledBy)
            .map(([name, count]) => `${name} ${count}`)
            .join(', ') || 'nothing',
        packages: result.packages,
      })),
    );
    const path = writeResult(resultName, { runs, results });
    console.log(`\nwrote ${path.slice(PACKAGE_ROOT.length + 1)}`);
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

main();
