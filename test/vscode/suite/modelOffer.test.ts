// The offer of the multilingual search model in the real VS Code, answered through its notifications (the Playwright
// driver clicks their buttons). The download goes to a local HTTP server started here that serves the tiny generated
// model in the mirror layout (<host>/docs-rag-test/tiny-embedding/resolve/main/<file>), named by the runner as a known
// model with the fixture files' sizes and SHA-256 (test/vscode/runner/testModel.ts), and reached through the mirror
// setting docsRag.local.modelHost — nothing is fetched from the internet. A generated document lifts the fixture
// workspace past OFFER_MIN_PASSAGES so the offer comes by itself after an index run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OFFER_COMMAND, OFFER_MIN_PASSAGES, type OfferEvent, type OfferOutcome } from '../../../src/views/localModel';
import { closedPort } from '../../helpers/ollamaServer';
import { click, waitFor } from '../runner/driverClient';
import { TEST_MODEL_ID, TEST_MODEL_PATH, tinyModelDir } from '../runner/testModel';
import { api, fileUri, folder, quiet, sleep, waitUntil } from './helpers';

const config = () => vscode.workspace.getConfiguration('docsRag');
const DOC = 'offer-test/many-passages.md';

// With the smoke-test driver on, VS Code shows no notification toasts: every notification is in the notification
// center, whose items show their buttons (notifications with buttons never collapse).
const item = (text: string) => `.notifications-center .notification-list-item:has-text("${text}")`;
const OFFER = item('multilingual search model (about');
const PROGRESS = item('downloading the multilingual search model');

/** Opens the notification center and waits for a notification; its text. */
async function notification(selector: string, timeoutMs = 30_000): Promise<string> {
  await vscode.commands.executeCommand('notifications.showList');
  const [text] = await waitFor(selector, { timeoutMs });
  return text;
}

/** Clicks a button of a notification, as a user in the notification center. */
async function answer(selector: string, label: string): Promise<void> {
  await notification(selector);
  await click(`${selector} .monaco-button:has-text("${label}")`);
}

interface ModelServer {
  url: string;
  requests: { file: string; range?: string }[];
  /** While true, model.onnx is answered with its first kilobyte and then held open (a download that hangs). */
  stall: boolean;
  close(): Promise<void>;
}

/** Serves the tiny model's files under TEST_MODEL_PATH, with Range requests (the downloader resumes a kept part). */
async function serveModel(): Promise<ModelServer> {
  const dir = tinyModelDir(process.env.DOCS_RAG_REPO!);
  const held = new Set<http.ServerResponse>();
  const s: ModelServer = { url: '', requests: [], stall: false, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    const file = url.startsWith(`${TEST_MODEL_PATH}/`) ? url.slice(TEST_MODEL_PATH.length + 1) : '';
    s.requests.push({ file, range: req.headers.range });
    const full = path.join(dir, file);
    if (!file || file.includes('..') || !fs.existsSync(full)) {
      res.writeHead(404).end('not found');
      return;
    }
    const body = fs.readFileSync(full);
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    const slice = body.subarray(from);
    res.writeHead(m ? 206 : 200, { 'content-length': slice.length, ...(m ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}) });
    if (s.stall && file === 'onnx/model.onnx') {
      held.add(res);
      res.on('close', () => held.delete(res));
      res.write(slice.subarray(0, 1024));
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.close = () =>
    new Promise<void>((r) => {
      for (const res of held) res.destroy();
      server.close(() => r());
    });
  return s;
}

/** A Markdown file of `sections` sections, each one passage. */
function manyPassages(sections: number): string {
  const out = ['# Generated handbook for the download offer', ''];
  for (let i = 1; i <= sections; i++) {
    out.push(`## Rule ${i}: Regel Nummer ${i}`, '');
    out.push(
      `Regel ${i} beschreibt den Ablauf Nummer ${i} im Detail: wer den Antrag ${i} stellt, bis wann er eingereicht wird und ` +
        `welche Unterlagen ihm beiliegen. Rule ${i} explains procedure number ${i}: who files request ${i}, by when it is due, ` +
        `and which documents go with it. Stichwort-${i} Keyword-${i}.`,
      '',
    );
  }
  return out.join('\n');
}

describe('download offer of the multilingual search model (notifications, local model server)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  const events: OfferEvent[] = [];
  let sub: vscode.Disposable | undefined;

  /** The next event after `from` (an index into `events`) that matches. */
  const nextEvent = <K extends OfferEvent['kind']>(kind: K, from: number, what: string, timeoutMs = 60_000) =>
    waitUntil(what, () => events.slice(from).find((e): e is Extract<OfferEvent, { kind: K }> => e.kind === kind), timeoutMs, 100);
  const outcomeAfter = async (from: number, timeoutMs = 60_000): Promise<OfferOutcome> => (await nextEvent('done', from, 'the offer to end', timeoutMs)).outcome;

  const modelFolder = async () => path.join((await api()).modelOffer.cacheDir, TEST_MODEL_ID);
  const embedderSet = () => config().inspect('embedder')?.workspaceValue;
  const metaEmbedder = async () => {
    const a = await api();
    return (await a.host.engine(folder())).store.meta()?.embedder;
  };

  before(async () => {
    const a = await api();
    await a.host.idle();
    server = await serveModel();
    sub = a.modelOffer.onDidChange((e) => events.push(e));
    // An offer left open by an earlier suite's large index (nobody answered it) is dismissed first; then every answer
    // is forgotten, as in a new profile.
    await vscode.commands.executeCommand('notifications.clearAll');
    await a.modelOffer.pending;
    await a.modelOffer.forgetAnswers();
  });

  after(async () => {
    const a = await api();
    sub?.dispose();
    await vscode.commands.executeCommand('notifications.clearAll');
    for (const key of ['embedder', 'local.modelPath', 'local.modelHost']) await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(path.dirname(fileUri(DOC).fsPath), { recursive: true, force: true });
    await quiet(a, 'the workspace back on the builtin embedder without the generated document', async () => {
      const meta = await metaEmbedder();
      return meta?.id === 'builtin' && (await a.host.passageCount()) < OFFER_MIN_PASSAGES;
    }, 120_000);
    await a.modelOffer.forgetAnswers();
    await vscode.commands.executeCommand('notifications.hideList');
    await server?.close();
  });

  it(`offers the model by itself past ${OFFER_MIN_PASSAGES} passages; offline it stays builtin, says what to run, and does not ask again`, async () => {
    const a = await api();
    const port = await closedPort();
    await config().update('local.modelPath', TEST_MODEL_ID, vscode.ConfigurationTarget.Workspace);
    await config().update('local.modelHost', `http://127.0.0.1:${port}`, vscode.ConfigurationTarget.Workspace);
    const from = events.length;
    fs.mkdirSync(path.dirname(fileUri(DOC).fsPath), { recursive: true });
    fs.writeFileSync(fileUri(DOC).fsPath, manyPassages(OFFER_MIN_PASSAGES));
    const offered = await nextEvent('offered', from, 'the offer after the index grew', 120_000);
    assert.deepEqual(offered, { kind: 'offered', model: TEST_MODEL_ID, auto: true });
    assert.ok((await a.host.passageCount()) >= OFFER_MIN_PASSAGES);
    assert.match(await notification(OFFER), /about \d+ kB, once/);
    await answer(OFFER, 'Download');
    assert.equal(await outcomeAfter(from), 'failed');
    const warning = await notification(item('could not be downloaded'));
    assert.match(warning, /ECONNREFUSED/);
    assert.match(warning, /Docs RAG: Download the multilingual search model/, 'the message names the command to run later');
    assert.equal(a.modelOffer.neverAsk, true, 'an offline failure is not offered by itself again');
    assert.equal(embedderSet(), undefined, 'the embedder stays the default builtin');
    assert.equal(fs.existsSync(await modelFolder()), false, 'no model folder');
    await a.host.idle();
    assert.equal((await metaEmbedder())?.id, 'builtin');
    const { hits } = await a.service.search('Stichwort-17 Antrag', { k: 5 });
    assert.ok(hits.some((h) => h.hit.passage.path === DOC), 'keyword search works');
  });

  it('cancel while it downloads: stays builtin, the part is kept but no model folder is used', async () => {
    const a = await api();
    await vscode.commands.executeCommand('notifications.clearAll');
    await config().update('local.modelHost', server.url, vscode.ConfigurationTarget.Workspace);
    server.stall = true;
    const from = events.length;
    const outcome = vscode.commands.executeCommand<OfferOutcome>(OFFER_COMMAND);
    assert.deepEqual(await nextEvent('offered', from, 'the offer from the command'), { kind: 'offered', model: TEST_MODEL_ID, auto: false });
    await answer(OFFER, 'Download');
    const progress = await nextEvent('progress', from, 'the first bytes');
    assert.ok(progress.percent > 0 && progress.percent < 100, `progress ${progress.percent} %`);
    await answer(PROGRESS, 'Cancel');
    assert.equal(await outcome, 'cancelled');
    server.stall = false;
    const info = await notification(item('download cancelled'));
    assert.match(info, /Docs RAG: Download the multilingual search model/);
    assert.equal(fs.existsSync(await modelFolder()), false, 'no model folder after a cancel');
    assert.ok(fs.existsSync(`${await modelFolder()}.partial`), 'the part received is kept for the next try');
    assert.equal(embedderSet(), undefined);
    await a.host.idle();
    assert.equal((await metaEmbedder())?.id, 'builtin');
  });

  it('accepted: progress to 100 %, the workspace switches to the local embedder, vectors are filled, search works', async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    const from = events.length;
    const outcome = vscode.commands.executeCommand<OfferOutcome>(OFFER_COMMAND);
    await nextEvent('offered', from, 'the offer from the command');
    await answer(OFFER, 'Download');
    try {
      await accepted(from, outcome);
    } finally {
      await config().update('embedder', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  async function accepted(from: number, outcome: Thenable<OfferOutcome>): Promise<void> {
    const a = await api();
    assert.equal(await outcome, 'switched');
    const percents = events.slice(from).flatMap((e) => (e.kind === 'progress' ? [e.percent] : []));
    assert.equal(Math.max(...percents), 100, `progress reports: ${percents.join(', ')}`);
    assert.ok(server.requests.some((r) => r.file === 'onnx/model.onnx' && r.range === 'bytes=1024-'), 'the kept part was resumed');
    assert.ok(fs.existsSync(path.join(await modelFolder(), 'docs-rag-model.json')), 'the verified model folder');
    assert.equal(embedderSet(), 'local');
    // Keyword search keeps working while the index is re-embedded.
    const early = await a.service.search('Stichwort-17 Antrag', { k: 5 });
    assert.ok(early.hits.some((h) => h.hit.passage.path === DOC), 'keyword search while the vectors are filled');
    await waitUntil('the index embedded with the downloaded model', async () => {
      await a.host.idle();
      const engine = await a.host.engine(folder());
      const meta = engine.store.meta();
      return meta?.embedder.id === 'local' && meta.embedder.model === TEST_MODEL_ID && meta.embedder.dimension === 32;
    }, 120_000, 500);
    const { hits } = await a.service.search('Resturlaub übertragen', { k: 5 });
    assert.ok(hits.length > 0, 'search works with the local model');
  }

  it('"Never ask again" is kept in globalState: the next index run offers nothing, the command offers it again', async () => {
    const a = await api();
    await quiet(a, 'back on the builtin embedder', async () => (await metaEmbedder())?.id === 'builtin', 120_000);
    await a.modelOffer.forgetAnswers();
    await vscode.commands.executeCommand('notifications.clearAll');
    let from = events.length;
    void a.indexing.background();
    await nextEvent('offered', from, 'the offer after an index run', 90_000);
    await answer(OFFER, 'Never ask again');
    assert.equal(await outcomeAfter(from), 'never');
    assert.equal(a.modelOffer.neverAsk, true);
    from = events.length;
    await a.indexing.background();
    await a.host.idle();
    await sleep(2000);
    assert.deepEqual(events.slice(from), [], 'no offer after "Never ask again"');
    const outcome = vscode.commands.executeCommand<OfferOutcome>(OFFER_COMMAND);
    assert.equal((await nextEvent('offered', from, 'the offer from the command')).auto, false);
    await answer(OFFER, 'Not now');
    assert.equal(await outcome, 'declined');
  });
});
