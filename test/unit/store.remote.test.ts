// A team's index in S3-compatible object storage: a real S3 API server (s3rver) on loopback, the CLI as the builder
// and a member run it, LanceDB writing and reading the tables in the bucket.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import S3rver from 's3rver';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { openStore } from '../../src/rag/store';
import { RemoteLeaseBusyError } from '../../src/rag/store/remoteLease';
import { ReadOnlyStoreError, StoreUriError, looksLikeUri, parseStoreUri, storageOptionsFromEnv, storeLocation } from '../../src/rag/store/remote';
import { cliSourceArgs, runCliSource } from '../helpers/run';
import { WORKSPACE, requireShared } from '../helpers/shared';

describe('store URIs', () => {
  it('takes a scheme of two or more letters as a URI, a drive letter or a plain name as a folder', () => {
    for (const uri of ['s3://team/docs', 'S3://team', 'gs://b/x', 'az://c/x', 's3:/team', 'https://example.org/x', 'file:///tmp/x']) assert.ok(looksLikeUri(uri), uri);
    for (const local of ['C:\\index', 'index', './s3:/x', '/tmp/s3://x', '.docs-rag']) assert.ok(!looksLikeUri(local), local);
  });

  it('normalises supported URIs and says what is wrong with the others', () => {
    assert.equal(parseStoreUri('s3://team/docs/').uri, 's3://team/docs');
    assert.equal(parseStoreUri('s3://team//a/b').uri, 's3://team/a/b');
    assert.equal(parseStoreUri('GS://bucket_1/x').scheme, 'gs');
    const bad: [string, RegExp][] = [
      ['s3:/team/docs', /not a well-formed URI: write s3:\/\/bucket\/path/],
      ['s3://', /no valid bucket name/],
      ['s3://a/x', /no valid bucket name/],
      ['s3://team/../other', /path segment/],
      ['https://example.org/x', /scheme https:, which docs-rag does not open/],
      ['file:///tmp/x', /scheme file:/],
      ['s3://AKIA:secret@team/x', /credentials or a port/],
    ];
    for (const [uri, message] of bad) assert.throws(() => parseStoreUri(uri), (err: unknown) => err instanceof StoreUriError && message.test(err.message), uri);
    // A secret in a rejected URI is not repeated in the message.
    assert.throws(() => parseStoreUri('s3://AKIA:secret@team/x'), (err: Error) => !err.message.includes('secret'));
  });

  it('takes endpoint, region, keys and plain HTTP for S3 from the standard variables, nothing for the other schemes', () => {
    const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:9000', AWS_REGION: 'eu-central-1', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's', AWS_ALLOW_HTTP: 'true' };
    assert.deepEqual(storageOptionsFromEnv('s3', env), { endpoint: 'http://127.0.0.1:9000', region: 'eu-central-1', aws_access_key_id: 'k', aws_secret_access_key: 's', allow_http: 'true' });
    assert.deepEqual(storageOptionsFromEnv('gs', env), {});
  });

  it('mirrors a remote store in the cache folder, one folder per URI', () => {
    const a = storeLocation('s3://team/docs', { XDG_CACHE_HOME: '/c' });
    const b = storeLocation('s3://team/other', { XDG_CACHE_HOME: '/c' });
    assert.ok(a.dir.startsWith(path.join('/c', 'docs-rag', 'remote')));
    assert.notEqual(a.dir, b.dir);
    assert.equal(storeLocation('rel/dir').dir, path.resolve('rel/dir'));
  });

  it('the CLI refuses an unsupported or malformed URI as a usage error and creates no folder named like it', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-uri-'));
    const folder = path.join(cwd, 'docs');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'a.md'), '# A\n\nText.\n');
    try {
      const cases = [...['s3:/team/docs', 'ftp://team/docs', 's3://'].map((store) => ['index', folder, '--store', store]), ['eval', '--folder', folder, '--queries', path.join(folder, 'q.jsonl'), '--store', 's3://team/docs']];
      for (const args of cases) {
        const store = args[args.length - 1];
        const r = await runCliSource(args, process.env, cwd);
        assert.equal(r.code, 2, `${store}: ${r.stderr}`);
        assert.match(r.stderr, /--store: /);
        assert.deepEqual(fs.readdirSync(cwd), ['docs'], `${store} created something in the working folder`);
        assert.deepEqual(fs.readdirSync(folder), ['a.md']);
      }
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});

const KEY = 'AKIADOCSRAGTESTKEY01';
const SECRET = 'docs-rag-test-secret-3f9a7c1e';
const URI = 's3://team/docs';
const QUESTION = 'Wie viele Werktage Urlaub hat ein Arbeitnehmer mindestens im Jahr?';

describe('a team index in S3-compatible object storage (s3rver on loopback)', function () {
  this.timeout(600_000);
  let server: S3rver;
  let root: string;
  let s3dir: string;
  let builder: string;
  let member: string;
  let builderEnv: NodeJS.ProcessEnv;
  let memberEnv: NodeJS.ProcessEnv;
  const outputs: string[] = [];

  before(async () => {
    requireShared('eval/workspace');
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-s3-'));
    s3dir = path.join(root, 's3');
    fs.mkdirSync(s3dir);
    // s3rver checks each request's signature against the key pairs of its account: the test's pair is added to it.
    (require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } }).DUMMY_ACCOUNT.createKeyPair(KEY, SECRET);
    server = new S3rver({ port: 0, address: '127.0.0.1', directory: s3dir, silent: true, configureBuckets: [{ name: 'team', configs: [] }] });
    const { port } = await server.run();
    for (const name of ['builder', 'member']) fs.cpSync(WORKSPACE, path.join(root, name), { recursive: true, filter: (src) => !src.endsWith('.jsonl') });
    builder = path.join(root, 'builder');
    member = path.join(root, 'member');
    const s3 = { AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`, AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: 'us-east-1', AWS_ALLOW_HTTP: 'true' };
    builderEnv = { ...process.env, ...s3, XDG_CACHE_HOME: path.join(root, 'cache-builder') };
    memberEnv = { ...process.env, ...s3, XDG_CACHE_HOME: path.join(root, 'cache-member') };
  });

  after(async () => {
    await server?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const cli = async (args: string[], env: NodeJS.ProcessEnv) => {
    const r = await runCliSource(args, env);
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const build = async () => {
    const r = await cli(['index', builder, '--store', URI, '--maintenance', 'wait', '--ocr', 'off', '--json'], builderEnv);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { files: number; chunks: number; unchanged: number };
  };
  const search = async (query: string) => {
    const r = await cli(['search', query, '--folder', member, '--store', URI, '--json', '--trace'], memberEnv);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { results: { path: string; heading: string; text: string; localCopy?: string }[] };
  };

  it('the builder indexes its folder into the bucket; a member searches it from another folder and cites § 3 BUrlG', async () => {
    const res = await build();
    assert.ok(res.files > 20, `indexed ${res.files} files`);
    assert.ok(!fs.existsSync(path.join(builder, '.docs-rag')), 'a remote build wrote a local store into the folder');
    // The tables are in the bucket (s3rver keeps each object as a file of its own).
    const objects = listFiles(s3dir).map((f) => path.relative(s3dir, f));
    for (const table of ['passages.lance', 'files.lance', 'store_files.lance']) assert.ok(objects.some((o) => o.includes(`docs/${table}/`)), `no ${table} in the bucket`);
    const { results } = await search(QUESTION);
    const top = results.slice(0, 3);
    const cited = top.find((h) => h.path === 'gesetze/burlg.md' && /§ 3\b/.test(h.heading));
    assert.ok(cited, `§ 3 BUrlG not among the first three: ${top.map((h) => `${h.path} ${h.heading}`).join(' | ')}`);
    assert.equal(cited.localCopy, 'same');
    assert.ok(!fs.existsSync(path.join(member, '.docs-rag')), 'the member wrote a local store into its folder');
  });

  it('a file changed in the builder\'s folder reaches the member after the builder\'s next run, marked as differing from the member\'s copy', async () => {
    const word = 'Zaunkönigsonderurlaub';
    fs.appendFileSync(path.join(builder, 'gesetze/burlg.md'), `\n\nEin ${word} von zwei Tagen steht jedem Arbeitnehmer zu.\n`);
    assert.ok(!(await search(word)).results.some((h) => h.text.includes(word)), 'found before the builder ran');
    const res = await build();
    assert.equal(res.files - res.unchanged, 1, 'the second run re-indexed more than the changed file');
    const hit = (await search(word)).results.find((h) => h.text.includes(word));
    assert.ok(hit, 'the changed text did not reach the member');
    assert.equal(hit.path, 'gesetze/burlg.md');
    assert.equal(hit.localCopy, 'differs');
  });

  it('a second builder (another machine) finds the first one\'s lease in the store: --no-wait exits naming it, and runs once it is released', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, builderEnv);
    try {
      const store = await openStore(URI);
      const release = await store.takeWriterLease({ purpose: 'index', wait: false });
      try {
        // Another machine: its own cache (so its own local writer lock), the same bucket.
        const other = { ...builderEnv, XDG_CACHE_HOME: path.join(root, 'cache-second-builder') };
        const busy = await cli(['index', builder, '--store', URI, '--no-wait', '--ocr', 'off'], other);
        assert.equal(busy.code, 1, busy.stderr);
        assert.match(busy.stderr, new RegExp(`pid ${process.pid}.*is writing this index \\(s3://team/docs\\)`));
        await assert.rejects(store.takeWriterLease({ purpose: 'index', wait: false }), RemoteLeaseBusyError);
      } finally {
        await release();
      }
      const second = await cli(['index', builder, '--store', URI, '--no-wait', '--ocr', 'off', '--json'], { ...builderEnv, XDG_CACHE_HOME: path.join(root, 'cache-second-builder') });
      assert.equal(second.code, 0, second.stderr);
      await store.close();
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('the member\'s MCP server searches the team index and marks the cited files that differ from the member\'s copies', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: cliSourceArgs(['mcp', '--folder', member, '--store', URI, '--quiet']), env: memberEnv as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'docs-rag-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'search', arguments: { query: 'Zaunkönigsonderurlaub', k: 5 } }, undefined, { timeout: 120_000 })) as { content: { text?: string }[]; structuredContent?: { results: { path: string; text: string; localCopy?: string }[] } };
      const hit = r.structuredContent?.results.find((h) => h.text.includes('Zaunkönigsonderurlaub'));
      assert.equal(hit?.localCopy, 'differs');
      assert.match(r.content.map((c) => c.text ?? '').join('\n'), /gesetze\/burlg\.md \(the local copy differs from the indexed one\)/);
    } finally {
      await client.close();
    }
  });

  it('a member\'s attempt to write is refused with a clear message', async () => {
    const watch = await cli(['mcp', '--folder', member, '--store', URI, '--watch'], memberEnv);
    assert.equal(watch.code, 2);
    assert.match(watch.stderr, /s3:\/\/team\/docs is a team index, opened read-only here/);
    // Through the engine, as the extension and an MCP server open it: every writer goes through the same gate.
    const saved = { ...process.env };
    Object.assign(process.env, memberEnv);
    try {
      const engine = await openEngine({ folder: member, storeDir: URI });
      try {
        assert.equal(engine.readOnly, true);
        await assert.rejects(indexFolder(engine, {}), (err: unknown) => err instanceof ReadOnlyStoreError && /docs-rag index <folder> --store s3:\/\/team\/docs/.test(err.message));
        await assert.rejects(engine.optimizeNow(), ReadOnlyStoreError);
      } finally {
        await engine.close();
      }
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('the member\'s status reads the store; credentials appear in no file the product wrote and in no output', async () => {
    const status = await cli(['status', '--folder', member, '--store', URI, '--json'], memberEnv);
    assert.equal(status.code, 0, status.stderr);
    const report = JSON.parse(status.stdout.trim().split('\n').pop()!) as { store: string; passages: { total: number } };
    assert.equal(report.store, URI);
    assert.ok(report.passages.total > 100);
    const written = [...listFiles(s3dir), ...listFiles(path.join(root, 'cache-builder')), ...listFiles(path.join(root, 'cache-member'))];
    assert.ok(written.some((f) => f.endsWith('meta.json')), 'no mirrored meta.json to check');
    for (const file of written) {
      const bytes = fs.readFileSync(file);
      for (const secret of [SECRET, KEY]) assert.ok(!bytes.includes(secret), `${secret === KEY ? 'the key id' : 'the secret'} is in ${path.relative(root, file)}`);
    }
    for (const out of outputs) for (const secret of [SECRET, KEY]) assert.ok(!out.includes(secret), 'a credential was printed');
  });
});

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}
