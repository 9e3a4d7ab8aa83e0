// Builtin embedder properties, and the Ollama embedder through the real `ollama` client against the test server.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as net from 'node:net';
import { defaultConfig } from '../../src/rag/config';
import { BUILTIN_MODEL, BuiltinEmbedder, createEmbedder, embedBuiltin, OllamaEmbedder } from '../../src/rag/embed';
import { ModelError } from '../../src/rag/types';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';

const cos = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

describe('BuiltinEmbedder', () => {
  const e = new BuiltinEmbedder();

  it('is deterministic and L2-normalised, also for empty text', async () => {
    const texts = ['Der Urlaub beträgt jährlich mindestens 24 Werktage.', 'cargo build --release', ''];
    const a = await e.embed(texts);
    const b = await new BuiltinEmbedder().embed(texts);
    assert.equal(a.length, 3);
    for (let i = 0; i < texts.length; i++) {
      assert.equal(a[i].length, e.dimension);
      assert.deepEqual(Array.from(a[i]), Array.from(b[i]));
      assert.ok(Math.abs(norm(a[i]) - 1) < 1e-5);
      assert.ok(a[i].every((x) => Number.isFinite(x)));
    }
    assert.ok(cos(a[0], a[1]) < 0.2);
  });

  it(`gives exactly the vectors of ${BUILTIN_MODEL} (an index built by an earlier version stays valid; a change must bump the model)`, () => {
    // Texts of every kind the tokenizer distinguishes: scripts, umlauts and diacritics, astral letters and digits, lone
    // surrogates, numbers, stop words, over-long words; plus generated texts over a mixed alphabet.
    const texts = [
      '', '   ', 'Die Kündigungsfrist für Arbeitnehmer beträgt vier Wochen zum Fünfzehnten oder zum Ende eines Kalendermonats.',
      'Cargo downloads your Rust package’s dependencies, compiles your packages and uploads them to crates.io.',
      'Straße, Größe, Ärger, Öl, Übermut — ÄÖÜ ß', 'café naïve façade résumé Ångström Øre ŁÓDŹ', 'Русский текст про договор и отпуск',
      '中文文本没有空格分词 日本語のテキスト', 'emoji 😀 and math 𝐀𝐁𝐂 letters 𝟘𝟙 digits', 'lone \ud83d high and \udc00 low surrogates',
      'numbers 12345 3.14 2026-11-26 v1.2.3 0x1F', 'Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsbeitragszahlungsverordnung',
      'der die das und oder aber the a an of to für über können', 'İstanbul ΣΊΣΥΦΟΣ ǅ ﬁle ﬀ', 'snake_case kebab-case CamelCase\ttab\r\nline',
      '٣٤٥ arabic-indic digits and العربية',
    ];
    const alphabet = [...'abcdefghijklmnopqrstuvwxyzäöüßéñ0123456789 .,;-_\n'].concat(['ж', 'ǅ', '😀', '𝐀', '\ud83d', '中']);
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let t = 0; t < 40; t++) texts.push(Array.from({ length: 50 + t * 40 }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
    const h = createHash('sha256');
    for (const t of texts) h.update(Buffer.from(embedBuiltin(t, 1024).buffer)).update(Buffer.from(embedBuiltin(t, 384).buffer));
    assert.equal(BUILTIN_MODEL, 'hash-ngram-v2');
    assert.equal(h.digest('hex'), '5f9a9f2317786860024a90ad17be8a649468b470352db9dd4147abe8927bf439');
  });

  it('puts a German compound query closer to the passage with its parts than to an unrelated one', () => {
    const q = embedBuiltin('Kündigungsschutzklage');
    const related = embedBuiltin('Will ein Arbeitnehmer geltend machen, dass eine Kündigung sozial ungerechtfertigt ist, so muss er Klage beim Arbeitsgericht erheben; der Kündigungsschutz gilt nach sechs Monaten.');
    const unrelated = embedBuiltin('Der Urlaub beträgt jährlich mindestens 24 Werktage. Als Werktage gelten alle Kalendertage, die nicht Sonn- oder gesetzliche Feiertage sind.');
    assert.ok(cos(q, related) > cos(q, unrelated) + 0.1, `${cos(q, related)} vs ${cos(q, unrelated)}`);
  });

  it('is robust to typos, inflections and umlaut spellings', () => {
    const passage = embedBuiltin('Der Urlaubsanspruch entsteht nach sechs Monaten; die Arbeitszeiten werden aufgezeichnet.');
    const other = embedBuiltin('Cargo downloads the dependencies listed in the manifest and compiles them.');
    for (const q of ['Urlaubsansprch', 'Urlaubsanspruchs', 'Arbeitszeit', 'Urlaubsanspruech']) {
      const v = embedBuiltin(q);
      assert.ok(cos(v, passage) > 0.15 && cos(v, passage) > cos(v, other) + 0.1, `${q}: ${cos(v, passage)} vs ${cos(v, other)}`);
    }
    // Folding: "Kündigung" and "Kuendigung" are the same features.
    assert.ok(cos(embedBuiltin('Kündigung'), embedBuiltin('Kuendigung')) > 0.999);
  });

  it('ignores function words so they do not make unrelated texts similar', () => {
    const a = embedBuiltin('der die das und oder nicht mit von Arbeitszeit');
    const b = embedBuiltin('der die das und oder nicht mit von Mindestlohn');
    assert.ok(cos(a, b) < 0.2, String(cos(a, b)));
  });

  it('down-weights words common in ordinary text, so a shared rare word counts more than a shared common one', () => {
    for (const [common, rare] of [
      ['installation', 'Quokka'],
      ['dependencies', 'Xylophon'],
      ['Bestimmungen', 'Zitronenfalter'],
    ]) {
      const a = embedBuiltin(`${common} ${rare}`);
      const sharesCommon = embedBuiltin(`${common} Schraubenschlüssel`);
      const sharesRare = embedBuiltin(`Zebra ${rare}`);
      assert.ok(cos(a, sharesRare) > cos(a, sharesCommon) + 0.2, `${common}/${rare}: ${cos(a, sharesRare)} vs ${cos(a, sharesCommon)}`);
    }
  });

  it('is the default of createEmbedder', () => {
    const d = createEmbedder(defaultConfig().embed);
    assert.equal(d.id, 'builtin');
    assert.equal(d.model, 'hash-ngram-v2');
  });
});

describe('OllamaEmbedder (real ollama client, test server)', () => {
  let server: FakeOllama | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const make = (host: string, over: Partial<{ model: string; batchSize: number; timeoutMs: number }> = {}) =>
    createEmbedder({ ...defaultConfig().embed, provider: 'ollama', ollamaHost: host, ...over });

  it('learns the dimension in init, batches requests and returns normalised vectors in input order', async () => {
    server = await startFakeOllama({ embed: (t) => [t.length, 1, 0, 2] });
    const e = make(server.url, { batchSize: 3, model: 'bge-m3' });
    assert.ok(e instanceof OllamaEmbedder);
    assert.equal(e.id, 'ollama');
    assert.equal(e.model, 'bge-m3');
    await e.init();
    assert.equal(e.dimension, 4);
    const texts = Array.from({ length: 7 }, (_, i) => 'x'.repeat(i + 1));
    const vs = await e.embed(texts);
    assert.equal(vs.length, 7);
    const embedCalls = server.requests.filter((r) => r.path === '/api/embed');
    assert.equal(embedCalls.length, 1 + 3, 'probe + ceil(7/3) batches');
    assert.deepEqual(
      embedCalls.slice(1).map((r) => r.body.input.length),
      [3, 3, 1],
    );
    for (let i = 0; i < 7; i++) {
      assert.ok(Math.abs(norm(vs[i]) - 1) < 1e-6);
      const expected = [i + 1, 1, 0, 2];
      const n = Math.hypot(...expected);
      assert.ok(Math.abs(vs[i][0] - expected[0] / n) < 1e-6, 'order kept');
    }
  });

  it('adds the model\'s task prefixes: documents vs queries (nomic-embed-text), none for bge-m3, overridable', async () => {
    server = await startFakeOllama();
    const inputs = () => server!.requests.filter((r) => r.path === '/api/embed').map((r) => r.body.input);
    const nomic = make(server.url);
    assert.equal(nomic.model, 'nomic-embed-text');
    const [doc] = await nomic.embed(['Urlaub']);
    const [query] = await nomic.embedQueries!(['Urlaub']);
    assert.deepEqual(inputs(), [['search_document: Urlaub'], ['search_query: Urlaub']]);
    assert.notDeepEqual(Array.from(doc), Array.from(query));
    await make(server.url, { model: 'bge-m3:latest' }).embedQueries!(['Urlaub']);
    assert.deepEqual(inputs().at(-1), ['Urlaub']);
    const custom = createEmbedder({ ...defaultConfig().embed, provider: 'ollama', ollamaHost: server.url, model: 'bge-m3', queryPrefix: 'q: ' });
    await custom.embedQueries!(['Urlaub']);
    assert.deepEqual(inputs().at(-1), ['q: Urlaub']);
    // The builtin embedder treats queries like documents.
    const b = new BuiltinEmbedder();
    assert.deepEqual(Array.from((await b.embedQueries(['Urlaub']))[0]), Array.from((await b.embed(['Urlaub']))[0]));
  });

  it('turns a missing model (404) into ModelError model-missing with `ollama pull`', async () => {
    server = await startFakeOllama({ models: ['llama3.2'] });
    const e = make(server.url, { model: 'bge-m3' });
    await assert.rejects(e.init(), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.kind, 'model-missing');
      assert.equal(err.message, "Ollama model 'bge-m3' is not installed. Run: ollama pull bge-m3");
      return true;
    });
  });

  it('turns an unreachable host (closed port) into ModelError unreachable with `ollama serve`', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const e = make(`http://127.0.0.1:${port}`);
    await assert.rejects(e.embed(['x']), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.kind, 'unreachable');
      assert.match(err.message, new RegExp(`Cannot reach Ollama at http://127\\.0\\.0\\.1:${port}\\. Start it with \`ollama serve\``));
      return true;
    });
  });

  it('times out a slow model with ModelError timeout', async () => {
    server = await startFakeOllama({ delayMs: 2000 });
    const e = make(server.url, { timeoutMs: 150 });
    const t0 = Date.now();
    await assert.rejects(e.embed(['x']), (err: unknown) => err instanceof ModelError && err.kind === 'timeout' && /raise the timeout/.test(err.message));
    assert.ok(Date.now() - t0 < 1500, 'gave up at the timeout, not after the delay');
  });

  it('cancels through an AbortSignal', async () => {
    server = await startFakeOllama({ delayMs: 2000 });
    const e = make(server.url);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(e.embed(['x'], ac.signal), (err: unknown) => err instanceof ModelError && err.kind === 'cancelled');
  });

  it('retries a batch when Ollama is busy (503) and gives up after the retries', async () => {
    let failures = 2;
    const busy = { status: 503, error: 'server busy, please try again.  maximum pending requests exceeded' };
    server = await startFakeOllama({ fail: (p) => (p === '/api/embed' && failures-- > 0 ? busy : undefined) });
    const e = new OllamaEmbedder({ host: server.url, model: 'bge-m3', batchSize: 8, timeoutMs: 5000, retries: 2, retryDelayMs: 10 });
    const vs = await e.embed(['a', 'b']);
    assert.equal(vs.length, 2);
    assert.equal(server.requests.filter((r) => r.path === '/api/embed').length, 3);
    await server.close();
    server = await startFakeOllama({ fail: (p) => (p === '/api/embed' ? busy : undefined) });
    const e2 = new OllamaEmbedder({ host: server.url, model: 'bge-m3', batchSize: 8, timeoutMs: 5000, retries: 2, retryDelayMs: 10 });
    await assert.rejects(e2.embed(['a']), (err: unknown) => err instanceof ModelError && /server busy/.test(err.message));
    assert.equal(server.requests.length, 3, 'one try + two retries');
  });

  it('reports a server error with its message', async () => {
    server = await startFakeOllama({ fail: (p) => (p === '/api/embed' ? { status: 500, error: 'llama runner process has terminated' } : undefined) });
    const e = make(server.url);
    await assert.rejects(e.embed(['x']), (err: unknown) => err instanceof ModelError && err.kind === 'other' && /HTTP 500.*llama runner/.test(err.message));
  });
});
