// The browser side: opens the VS Code web UI of the test server in headless Chromium (playwright-core driving
// Debian's /usr/bin/chromium), starts the extension tests through the URL payload, answers the suite's
// driver requests (screenshots, clicks in webviews...) and resolves with the exit code VS Code reports
// through `window.codeAutomationExit` (enabled by the server's --enable-smoke-test-driver).
import { promises as fs, createWriteStream } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { REQUESTS_DIR, type DriverRequest, type DriverResponse, type FrameTarget } from './protocol';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export interface DriveOptions {
  chromium: string;
  origin: string;
  workspace: string;
  /** Absolute folder of the extension under development; omitted to test an installed VSIX. */
  extensionDevelopmentPath?: string;
  /** Absolute path of the bundled test entry (exports run()). */
  extensionTestsPath: string;
  resultsDir: string;
  browserLog: string;
  timeoutMs: number;
  /** Aborted when the server dies: the run ends at once instead of waiting for the timeout. */
  signal?: AbortSignal;
}

export interface DriveResult {
  exitCode: number;
  timedOut: boolean;
  /** VS Code never became an Extension Development Host within 90 s, so the tests could not start. */
  notStarted: boolean;
  /** The server exited before the tests ended. */
  aborted: boolean;
  requestsServed: number;
}

function remoteUri(origin: string, absPath: string): string {
  const host = new URL(origin).host;
  return `vscode-remote://${host}${absPath.split(path.sep).join('/')}`;
}

export function testUrl(o: Pick<DriveOptions, 'origin' | 'workspace' | 'extensionDevelopmentPath' | 'extensionTestsPath'>): string {
  const payload: [string, string][] = [];
  if (o.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remoteUri(o.origin, o.extensionDevelopmentPath)]);
  payload.push(['extensionTestsPath', remoteUri(o.origin, o.extensionTestsPath)]);
  return `${o.origin}/?folder=${encodeURIComponent(o.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

export async function drive(o: DriveOptions): Promise<DriveResult> {
  const log = createWriteStream(o.browserLog);
  const requestsDir = path.join(o.resultsDir, REQUESTS_DIR);
  await fs.mkdir(requestsDir, { recursive: true });
  let browser: Browser | undefined;
  let served = 0;
  let stopPolling = false;
  try {
    browser = await chromium.launch({ executablePath: o.chromium, args: CHROMIUM_ARGS, headless: true });
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('console', (m) => log.write(`[${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => log.write(`[pageerror] ${e.message}\n`));

    let resolveExit!: (code: number) => void;
    const exited = new Promise<number>((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationExit', (code: number) => {
      resolveExit(Number(code));
    });

    const poller = (async () => {
      while (!stopPolling) {
        served += await serveRequests(page, requestsDir, o.resultsDir, log);
        await new Promise((r) => setTimeout(r, 150));
      }
    })();

    await page.goto(testUrl(o), { waitUntil: 'domcontentloaded', timeout: 60_000 });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), o.timeoutMs)));
    // Fail fast when VS Code opens a normal window instead of an Extension Development Host (tests never start).
    const notStarted = (async (): Promise<'not-started' | undefined> => {
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        if ((await page.title().catch(() => '')).includes('Extension Development Host')) return undefined;
        await new Promise((r) => setTimeout(r, 500));
      }
      return 'not-started';
    })();
    const aborted = new Promise<'aborted'>((r) => {
      if (o.signal?.aborted) r('aborted');
      o.signal?.addEventListener('abort', () => r('aborted'));
    });
    const outcome = await Promise.race([
      exited,
      timeout,
      aborted,
      notStarted.then((v) => (v ? v : new Promise<never>(() => undefined))),
    ]);
    if (outcome === 'not-started') {
      clearTimeout(timer);
      stopPolling = true;
      await poller;
      await page.screenshot({ path: path.join(o.resultsDir, 'not-started.png') }).catch(() => undefined);
      return { exitCode: 1, timedOut: false, notStarted: true, aborted: false, requestsServed: served };
    }
    clearTimeout(timer);
    stopPolling = true;
    await poller;
    // The page as the tests left it (useful when a CI run fails).
    await page.screenshot({ path: path.join(o.resultsDir, 'final.png') }).catch(() => undefined);
    if (outcome === 'aborted') {
      return { exitCode: 1, timedOut: false, notStarted: false, aborted: true, requestsServed: served };
    }
    if (outcome === 'timeout') {
      await page.screenshot({ path: path.join(o.resultsDir, 'timeout.png') }).catch(() => undefined);
      return { exitCode: 1, timedOut: true, notStarted: false, aborted: false, requestsServed: served };
    }
    return { exitCode: outcome, timedOut: false, notStarted: false, aborted: false, requestsServed: served };
  } finally {
    stopPolling = true;
    await browser?.close().catch(() => undefined);
    log.end();
  }
}

/** Answers every pending request file once; returns how many it answered. */
async function serveRequests(page: Page, dir: string, resultsDir: string, log: NodeJS.WritableStream): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  const pending = names.filter((n) => n.endsWith('.json') && !n.endsWith('.response.json')).sort();
  let count = 0;
  for (const name of pending) {
    const file = path.join(dir, name);
    const responseFile = file.replace(/\.json$/, '.response.json');
    if (names.includes(path.basename(responseFile))) continue;
    let response: DriverResponse;
    try {
      const req = JSON.parse(await fs.readFile(file, 'utf8')) as DriverRequest;
      log.write(`[driver] ${JSON.stringify(req)}\n`);
      response = { ok: true, result: await perform(page, req, resultsDir) };
    } catch (err) {
      response = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    log.write(`[driver] → ${JSON.stringify(response).slice(0, 500)}\n`);
    await fs.writeFile(`${responseFile}.tmp`, JSON.stringify(response));
    await fs.rename(`${responseFile}.tmp`, responseFile);
    count++;
  }
  return count;
}

/** The content frames of webviews (VS Code nests them: outer iframe.webview → inner #active-frame). */
function webviewFrames(page: Page, t: FrameTarget): Frame[] {
  const ext = t.extensionId ?? 'docs-rag.docs-rag';
  return page.frames().filter((f) => {
    const parent = f.parentFrame();
    if (!parent || (f.name() !== 'active-frame' && !f.url().includes('fake.html'))) return false;
    const outer = decodeURIComponent(parent.url());
    if (ext && !outer.toLowerCase().includes(`extensionid=${ext.toLowerCase()}`)) return false;
    if (t.webviewUrlIncludes && !outer.includes(t.webviewUrlIncludes)) return false;
    return true;
  });
}

/** The frame to act in; for webviews the first one holding `selector` (waits up to timeoutMs for one to appear). */
async function targetFrame(page: Page, t: FrameTarget, selector: string | undefined, timeoutMs: number): Promise<Frame> {
  if ((t.frame ?? 'page') === 'page') return page.mainFrame();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frames = webviewFrames(page, t);
    for (const f of frames) {
      if (!selector) return f;
      if ((await f.locator(selector).count().catch(() => 0)) > 0) return f;
    }
    if (Date.now() > deadline) {
      const seen = page.frames().map((f) => `${f.name() || '-'} ${f.url().slice(0, 160)}`).join('\n  ');
      throw new Error(
        `no webview frame${t.extensionId !== '' ? ` of ${t.extensionId ?? 'docs-rag.docs-rag'}` : ''}` +
          `${selector ? ` containing ${selector}` : ''} after ${timeoutMs} ms (webview content frames: ${frames.length}); frames:\n  ${seen}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function perform(page: Page, req: DriverRequest, resultsDir: string): Promise<unknown> {
  switch (req.action) {
    case 'screenshot': {
      if (!/^[\w.-]+$/.test(req.name)) throw new Error(`bad screenshot name ${JSON.stringify(req.name)} (use letters, digits, - _ .)`);
      const file = path.join(resultsDir, req.name.endsWith('.png') ? req.name : `${req.name}.png`);
      await page.screenshot({ path: file });
      return file;
    }
    case 'click': {
      const timeout = req.timeoutMs ?? 30_000;
      const frame = await targetFrame(page, req, req.selector, timeout);
      await frame.locator(req.selector).nth(req.index ?? 0).click({ timeout });
      return null;
    }
    case 'fill': {
      const timeout = req.timeoutMs ?? 30_000;
      const frame = await targetFrame(page, req, req.selector, timeout);
      await frame.locator(req.selector).first().fill(req.value, { timeout });
      return null;
    }
    case 'press': {
      const timeout = req.timeoutMs ?? 30_000;
      if (!req.selector) {
        await page.keyboard.press(req.key);
        return null;
      }
      const frame = await targetFrame(page, req, req.selector, timeout);
      await frame.locator(req.selector).first().press(req.key, { timeout });
      return null;
    }
    case 'waitFor': {
      const timeout = req.timeoutMs ?? 30_000;
      const frame = await targetFrame(page, req, req.selector, timeout);
      await frame.locator(req.selector).first().waitFor({ state: req.state ?? 'visible', timeout });
      return frame.locator(req.selector).allTextContents();
    }
    case 'text': {
      // A webview holding the selector, else the first webview (so "no match" answers []).
      const frame = await targetFrame(page, req, req.selector, 3_000).catch(() => targetFrame(page, req, undefined, 10_000));
      return frame.locator(req.selector).allTextContents();
    }
    case 'evaluate': {
      const frame = await targetFrame(page, req, undefined, 30_000);
      return frame.evaluate(req.expression);
    }
    case 'frames':
      return page.frames().map((f) => ({ name: f.name(), url: f.url() }));
    default: {
      const unknown: never = req;
      throw new Error(`unknown driver action ${JSON.stringify((unknown as { action?: unknown }).action)}`);
    }
  }
}
