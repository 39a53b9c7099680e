/**
 * Hostile structure in text formats: HTML with enormous DOMs (deep or wide) through the file loader,
 * the web loader and a web_page datasource; JSON nested 10,000+ deep through the JSON file loader.
 * Every case ends in a typed error or a correct result, never a stack overflow, an out-of-memory
 * crash or minutes of parsing (each test has its own timeout).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileLoaders, loadFile } from '../../adapters/loaders/index.js';
import { MAX_JSON_INDENT_LEVELS, renderJson } from '../../adapters/loaders/json-loader.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk } from '../../src/index.js';
import type { HtmlElement } from '../../adapters/loaders/html/dom.js';
import { DEFAULT_MARKUP_LIMITS, parseHtml } from '../../adapters/loaders/html/parse-html.js';
import { startHttpServer, type TestHttpServer } from '../helpers/http-server.js';
import { failure, utf8 } from './helpers.js';

const loaders = fileLoaders();
const loadHtml = (html: string) => loadFile(loaders, { bytes: utf8(html), fileName: 'page.html' });
const nested = (depth: number, inner = 'DEEP-MARKER') => `${'<div>'.repeat(depth)}${inner}${'</div>'.repeat(depth)}`;
const siblings = (count: number) => `<html><body>${'<p>w</p>'.repeat(count)}<p>LAST-SIBLING</p></body></html>`;

describe('HTML with enormous DOMs: file loader', () => {
  it('nesting deeper than the limit is refused before parsing, at 100,000 and 1,000,000 levels', async () => {
    for (const depth of [100_000, 1_000_000]) {
      const error = await failure(loadHtml(nested(depth)));
      expect(error.code).toBe('payload_too_large');
      expect(error.details).toMatchObject({ reason: 'html_too_deep', maxDepth: DEFAULT_MARKUP_LIMITS.maxDepth });
    }
  }, 20_000);

  it('nesting just under the limit parses and keeps its text (no stack overflow in the text walk)', async () => {
    const document = await loadHtml(nested(DEFAULT_MARKUP_LIMITS.maxDepth - 5));
    expect(document.sections[0]?.text).toBe('DEEP-MARKER');
    const error = await failure(loadHtml(nested(DEFAULT_MARKUP_LIMITS.maxDepth + 1)));
    expect(error.details).toMatchObject({ reason: 'html_too_deep' });
  }, 20_000);

  it('a million siblings, comments or attributes are refused by node count', async () => {
    const bombs = {
      siblings: siblings(1_000_000),
      comments: `<html><body>${'<!---->'.repeat(1_100_000)}</body></html>`,
      attributes: `<html><body><p ${Array.from({ length: 1_100_000 }, (_, i) => `a${i}`).join(' ')}>x</p></body></html>`,
    };
    for (const [name, html] of Object.entries(bombs)) {
      const error = await failure(loadHtml(html));
      expect(error.code, name).toBe('payload_too_large');
      expect(error.details, name).toMatchObject({ reason: 'html_too_many_nodes', maxNodes: DEFAULT_MARKUP_LIMITS.maxNodes });
    }
  }, 30_000);

  it('100,000 siblings (under the node limit) load completely', async () => {
    const document = await loadHtml(siblings(100_000));
    const text = document.sections[0]?.text ?? '';
    expect(text.endsWith('LAST-SIBLING')).toBe(true);
    expect(text.split('\n').filter((line) => line === 'w')).toHaveLength(100_000);
  }, 30_000);
});

describe('HTML with enormous DOMs: web loader and web_page datasources', () => {
  let server: TestHttpServer;
  const pages: Record<string, string> = {
    '/deep': `<!doctype html><html><body>${nested(500_000)}</body></html>`,
    '/wide': siblings(1_000_000),
    '/fine': `<!doctype html><html><head><title>Fine</title></head><body><main><p>FINE-PAGE text</p></main></body></html>`,
  };

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const body = pages[request.url ?? ''];
      if (body === undefined) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('a 500,000-deep page and a million-sibling page are refused with payload_too_large', async () => {
    const web = webLoader({ allowPrivateNetwork: true });
    const deep = await failure(web.loadPage(`${server.origin}/deep`));
    expect(deep.code).toBe('payload_too_large');
    expect(deep.details).toMatchObject({ reason: 'html_too_deep', url: `${server.origin}/deep` });
    const wide = await failure(web.loadPage(`${server.origin}/wide`));
    expect(wide.details).toMatchObject({ reason: 'html_too_many_nodes' });
    const fine = await web.loadPage(`${server.origin}/fine`);
    expect(fine.document.sections[0]?.text).toContain('FINE-PAGE');
  }, 30_000);

  it('a web_page datasource of a hostile page ends in error with the reason, the instance keeps working', async () => {
    const ragdesk = createRagdesk({
      ...memoryStores(),
      index: exactIndex(),
      embeddings: localEmbeddings(),
      web: webLoader({ allowPrivateNetwork: true }),
      jobs: { retry: { maxAttempts: 1 } },
    });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'web' });
      const bad = await ragdesk.datasources.create({
        datastoreId: datastore.id,
        type: 'web_page',
        config: { source_url: `${server.origin}/deep` },
      });
      const good = await ragdesk.datasources.create({
        datastoreId: datastore.id,
        type: 'web_page',
        config: { source_url: `${server.origin}/fine` },
      });
      const settledBad = await ragdesk.datasources.waitUntilSettled(bad.id, 20_000);
      expect(settledBad.status).toBe('error');
      expect(settledBad.error).toMatch(/levels deep/);
      expect((await ragdesk.datasources.waitUntilSettled(good.id, 20_000)).status).toBe('synched');
      const hits = await datastore.query({ query: 'FINE-PAGE text' });
      expect(hits.map((hit) => hit.datasource_id)).toEqual([good.id]);
    } finally {
      await ragdesk.close();
    }
  }, 40_000);
});

describe('parseHtml counts depth and nodes as the tree it builds has them', () => {
  const shapeOf = (root: HtmlElement): { depth: number; nodes: number } => {
    let depth = 0;
    let nodes = 0;
    const stack: Array<[HtmlElement, number]> = [[root, 0]];
    while (stack.length > 0) {
      const [node, level] = stack.pop() as [HtmlElement, number];
      for (let child = node.firstChild; child; child = child.next) {
        nodes++;
        if (child.kind !== 'element') continue;
        nodes += Object.keys(child.attributes).length;
        depth = Math.max(depth, level + 1);
        stack.push([child, level + 1]);
      }
    }
    return { depth, nodes };
  };
  const TAGS = [
    'div',
    'p',
    'li',
    'ul',
    'td',
    'tr',
    'table',
    'span',
    'b',
    'svg',
    'math',
    'path',
    'title',
    'script',
    'style',
    'xmp',
    'br',
    'img',
    'option',
    'optgroup',
    'select',
    'dd',
    'dt',
    'h1',
    'textarea',
    'foreignObject',
    'desc',
    'mi',
    'input',
    'tbody',
    'thead',
    'tfoot',
    'body',
    'head',
    'rt',
    'rp',
    'a-b',
  ];
  const tag = fc.constantFrom(...TAGS);
  const token = fc.oneof(
    tag.map((name) => `<${name}>`),
    tag.map((name) => `</${name}>`),
    tag.map((name) => `</${name.toUpperCase()} junk>`),
    tag.map((name) => `<${name}/>`),
    tag.map((name) => `<${name} / >`),
    tag.map((name) => `<${name} a="x>y" b='q' c=d/>`),
    tag.map((name) => `<${name} a = "1" a=2 x/y z>`),
    tag.map((name) => `<${name.toUpperCase()} x>`),
    fc.constantFrom(
      'text',
      ' ',
      '\n',
      '<!-- c -->',
      '<!--->',
      '<?pi?>',
      '</>',
      '</ >',
      '< x',
      '<1',
      '<![CDATA[ <div> ]]>',
      '</ p>',
      '</br>',
      '</p>',
      '<!x <div>>',
      '</3 <div>>',
      'a<b',
      '<a href="',
      "<b c='",
    ),
  );

  const unlimited = { maxDepth: Number.MAX_SAFE_INTEGER, maxNodes: Number.MAX_SAFE_INTEGER };
  const treeOf = (html: string): HtmlElement => {
    const parsed = parseHtml(html, unlimited);
    if (!('document' in parsed)) throw new Error('no limit can be passed');
    return parsed.document;
  };

  it('stops exactly past the depth of the tree and never later than its node count, on random tag soup', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 80 }), (tokens) => {
        const html = tokens.join('');
        const real = shapeOf(treeOf(html));
        expect('document' in parseHtml(html, { ...unlimited, maxDepth: real.depth }), html).toBe(true);
        if (real.depth > 0) expect(parseHtml(html, { ...unlimited, maxDepth: real.depth - 1 }), html).toEqual({ exceeded: 'depth' });
        if (real.nodes > 0) expect(parseHtml(html, { ...unlimited, maxNodes: real.nodes - 1 }), html).toEqual({ exceeded: 'nodes' });
      }),
      { numRuns: 1500, seed: 7 },
    );
  }, 30_000);

  it('stops at the first limit passed', () => {
    expect(parseHtml(nested(10), { maxDepth: 5, maxNodes: 100 })).toEqual({ exceeded: 'depth' });
    expect(parseHtml('<p>a</p><p>b</p>', { maxDepth: 5, maxNodes: 2 })).toEqual({ exceeded: 'nodes' });
    expect(parseHtml('<!--a--><!--b--><!--c-->', { maxDepth: 5, maxNodes: 2 })).toEqual({ exceeded: 'nodes' });
    expect('document' in parseHtml('<script><div><div><div></script>', { maxDepth: 1, maxNodes: 10 })).toBe(true);
  });
});

/** The JSON loader's rendering before it became iterative: the reference for shallow documents. */
function recursiveRender(value: unknown, indent: string): string[] {
  const scalar = (item: unknown, childIndent: string): string =>
    typeof item === 'string' ? item.replace(/\r?\n/g, `\n${childIndent}`) : String(item);
  const entry = (prefix: string, item: unknown, childIndent: string): string[] => {
    const isContainer = item !== null && typeof item === 'object';
    const isEmpty = isContainer && Object.keys(item).length === 0;
    if (isContainer && !isEmpty) return [prefix, ...recursiveRender(item, childIndent)];
    return [`${prefix} ${isEmpty ? (Array.isArray(item) ? '[]' : '{}') : scalar(item, childIndent)}`];
  };
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item: unknown) => {
      if (item === null || typeof item !== 'object' || Object.keys(item).length === 0) return entry(`${indent}-`, item, `${indent}  `);
      const [first = '', ...rest] = recursiveRender(item, `${indent}  `);
      return [`${indent}- ${first.slice(indent.length + 2)}`, ...rest];
    });
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return [`${indent}{}`];
    return keys.flatMap((key) => entry(`${indent}${key}:`, (value as Record<string, unknown>)[key], `${indent}  `));
  }
  return [`${indent}${scalar(value, indent)}`];
}

describe('JSON nested deep through the JSON file loader', () => {
  const loadJson = (json: string) => loadFile(loaders, { bytes: utf8(json), fileName: 'data.json' });

  it('objects and arrays nested 10,000 and 100,000 deep load, with every value and bounded indentation', async () => {
    for (const depth of [10_000, 100_000]) {
      const objects = await loadJson(`${'{"level":'.repeat(depth)}"LEAF-OBJECT"${'}'.repeat(depth)}`);
      const objectLines = (objects.sections[0]?.text ?? '').split('\n');
      expect(objectLines).toHaveLength(depth);
      expect(objectLines.at(-1)?.trim()).toBe('level: LEAF-OBJECT');
      expect(Math.max(...objectLines.map((line) => line.length - line.trimStart().length))).toBe(2 * MAX_JSON_INDENT_LEVELS);

      const arrays = await loadJson(`${'['.repeat(depth)}"LEAF-ARRAY"${']'.repeat(depth)}`);
      expect(arrays.sections[0]?.text).toBe(`${'- '.repeat(depth)}LEAF-ARRAY`);
    }
  }, 30_000);

  it('text that would expand far past the file is refused while rendering', async () => {
    // Past the indentation cap every `1,` (2 bytes) becomes a 36-character line: 18x the file.
    const json = `${'['.repeat(20)}${'1,'.repeat(300_000)}1${']'.repeat(20)}`;
    const error = await failure(loadJson(json));
    expect(error.code).toBe('payload_too_large');
    expect(error.details).toMatchObject({ reason: 'json_too_expansive' });
  }, 20_000);

  it('renders shallow documents exactly as the recursive renderer did', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string(), fc.constantFrom('two\nlines', 'a\r\nb'), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(renderJson(value)).toBe(recursiveRender(value, '').join('\n'));
      }),
      { numRuns: 1000, seed: 11 },
    );
  });
});
