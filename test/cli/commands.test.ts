import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../adapters/cli/cli.js';
import { tempDir } from '../helpers/setups.js';
import { recordingIo } from './io.js';

const ROOT = '/nonexistent-package-root';

describe('ragdesk CLI commands', () => {
  const temp = tempDir('ragdesk-cli-');
  const dataDir = join(temp.dir, 'data');
  const run = async (...argv: string[]) => {
    const io = recordingIo();
    const code = await runCli(argv, io, ROOT);
    return { code, out: io.text(), err: io.err.join('') };
  };

  beforeAll(() => {
    const docs = join(temp.dir, 'docs');
    mkdirSync(join(docs, 'nested'), { recursive: true });
    writeFileSync(join(docs, 'tides.md'), '# Tides\n\nTides are caused by the gravitational pull of the moon on the oceans.\n');
    writeFileSync(join(docs, 'nested', 'planets.csv'), 'planet,moons\nMars,2\nJupiter,95\n');
    writeFileSync(join(docs, 'broken.pdf'), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0]));
    writeFileSync(join(docs, 'image.png'), 'ignored by extension');
  });
  afterAll(() => temp.remove());

  it('keys create, list and revoke', async () => {
    const created = await run('keys', 'create', '--data-dir', dataDir, '--owner', 'alice', '--name', 'ci', '--scopes', 'read,query');
    expect(created.code).toBe(0);
    const key = created.out.trim();
    expect(key).toMatch(/^rdk_/);
    expect(created.err).toContain('shown once');
    const listed = await run('keys', 'list', '--data-dir', dataDir);
    expect(listed.out).toContain(key.slice(0, 12));
    expect(listed.out).toContain('owner=alice  scopes=read,query');
    expect(listed.out).not.toContain(key);
    const revoked = await run('keys', 'revoke', key.slice(0, 12), '--data-dir', dataDir);
    expect(revoked.code).toBe(0);
    expect((await run('keys', 'list', '--data-dir', dataDir, '--json')).out).toContain('"revokedAt":"');
    expect((await run('keys', 'revoke', 'rdk_nothing', '--data-dir', dataDir)).code).toBe(1);

    const expiring = await run(
      'keys',
      'create',
      '--data-dir',
      dataDir,
      '--owner',
      'alice',
      '--name',
      'temp',
      '--expires',
      '2999-01-01T00:00:00Z',
    );
    expect(expiring.code).toBe(0);
    expect((await run('keys', 'list', '--data-dir', dataDir)).out).toContain('"temp"  never used  expires 2999-01-01T00:00:00.000Z');
    const past = await run('keys', 'create', '--data-dir', dataDir, '--owner', 'alice', '--expires', '2000-01-01T00:00:00Z');
    expect(past.code).not.toBe(0);
    expect(past.err).toContain('expiresAt');
  });

  it('ingests a folder with a progress report, skips what it cannot read, and does not ingest twice', async () => {
    const first = await run('ingest', join(temp.dir, 'docs'), '--datastore', 'notes', '--data-dir', dataDir);
    expect(first.err).toContain('Created datastore "notes"');
    expect(first.err).toMatch(/ingest: 0\/2 \(0%\)[\s\S]*ingest: 2\/2 \(100%\)/);
    expect(first.err).toContain('skip broken.pdf: unsupported_media_type');
    expect(first.out).toMatch(/Ingested 2 of 3 into "notes"/);
    expect(first.code).toBe(1);
    const second = await run('ingest', join(temp.dir, 'docs', 'tides.md'), '--datastore', 'notes', '--data-dir', dataDir);
    expect(second.err).toContain('skip tides.md: already ingested');
  });

  it('query prints the best fragments; ask streams an answer, then its sources', async () => {
    const query = await run('query', 'what', 'causes', 'tides', '--datastore', 'notes', '--top-k', '2', '--data-dir', dataDir);
    expect(query.code).toBe(0);
    expect(query.out).toMatch(/^1\. \[tides\.md\] score/);
    const json = await run('query', 'moons of Jupiter', '--datastore', 'notes', '--json', '--data-dir', dataDir);
    expect((JSON.parse(json.out) as { datasource_name: string }[])[0]?.datasource_name).toBe('nested/planets.csv');
    const ask = await run('ask', 'What causes tides?', '--datastore', 'notes', '--data-dir', dataDir);
    expect(ask.code).toBe(0);
    expect(ask.out).toContain('gravitational pull of the moon');
    expect(ask.out).toMatch(/Sources:\n {2}\[1\] tides\.md/);
    expect(ask.err).toMatch(/conversation \S+ · local:/);
  });

  it('backup copies the data folder; restore refuses a non-empty folder unless --force, and the copy answers', async () => {
    const backupDir = join(temp.dir, 'backup');
    const backup = await run('backup', backupDir, '--data-dir', dataDir);
    expect(backup.code).toBe(0);
    expect(backup.out).toMatch(/^Backed up .* to .*backup: database \d+ bytes/);
    expect((await run('backup', backupDir, '--data-dir', dataDir)).code).toBe(1); // target not empty

    const restored = join(temp.dir, 'restored');
    const restore = await run('restore', backupDir, '--data-dir', restored);
    expect(restore.code).toBe(0);
    const refused = await run('restore', backupDir, '--data-dir', restored);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('conflict');
    expect((await run('restore', backupDir, '--data-dir', restored, '--force')).out).toContain('replacing its content');
    const query = await run('query', 'what', 'causes', 'tides', '--datastore', 'notes', '--top-k', '1', '--data-dir', restored);
    expect(query.out).toMatch(/^1\. \[tides\.md\] score/);
    expect((await run('backup', '--data-dir', dataDir)).code).toBe(2);
  });

  it('eval runs the retrieval benchmark on a BEIR folder', async () => {
    const beir = join(temp.dir, 'beir');
    mkdirSync(join(beir, 'qrels'), { recursive: true });
    const corpus = [
      { _id: 'd1', title: 'Tides', text: 'The moon pulls the oceans and makes tides.' },
      { _id: 'd2', title: 'Volcanoes', text: 'Magma rises through the crust and erupts as lava.' },
      { _id: 'd3', title: 'Bread', text: 'Yeast ferments flour so sourdough bread rises.' },
    ];
    writeFileSync(join(beir, 'corpus.jsonl'), corpus.map((doc) => JSON.stringify(doc)).join('\n'));
    writeFileSync(
      join(beir, 'queries.jsonl'),
      [
        { _id: 'q1', text: 'what makes tides' },
        { _id: 'q2', text: 'how does lava erupt' },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    writeFileSync(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
    const result = await run('eval', '--dataset', beir, '--mode', 'lexical');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/lexical +1\.000 +1\.000 +1\.000/);
  });

  it('prints help, and refuses unknown commands and bad options with exit code 2', async () => {
    const help = await run('help');
    expect(help.code).toBe(0);
    for (const command of ['serve', 'keys create', 'ingest', 'query', 'ask', 'eval']) expect(help.out).toContain(`ragdesk ${command}`);
    expect((await run('frobnicate')).code).toBe(2);
    expect((await run('query', '--nonsense')).code).toBe(2);
    expect((await run('ingest', 'x')).code).toBe(2);
  });
});
