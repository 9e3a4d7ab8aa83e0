// Used INSIDE the extension host by test suites (bundled into them): asks the Playwright driver that runs
// the browser to take screenshots or act on the page / a webview. See protocol.ts and test/vscode/README.md.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { REQUESTS_DIR, RESULTS_ENV, type DriverRequest, type DriverResponse, type FrameTarget } from './protocol';

/** Folder for summaries, screenshots and driver requests (env DOCS_RAG_TEST_RESULTS, else <repo>/test-results). */
export function testResultsDir(): string {
  const fromEnv = process.env[RESULTS_ENV];
  if (fromEnv) return fromEnv;
  // Bundles live in <repo>/out/vscode-tests/<name>/index.js.
  return path.resolve(__dirname, '../../../test-results');
}

/** Whether a driver is answering (the runner sets DOCS_RAG_TEST_DRIVER=1 on the server). */
export function driverAvailable(): boolean {
  return process.env.DOCS_RAG_TEST_DRIVER === '1';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one request to the driver and waits for its response; throws with the driver's error. */
export async function driverRequest(req: DriverRequest, timeoutMs = 60_000): Promise<unknown> {
  const dir = path.join(testResultsDir(), REQUESTS_DIR);
  await fs.mkdir(dir, { recursive: true });
  const id = `${Date.now()}-${randomUUID().slice(0, 8)}`;
  const file = path.join(dir, `${id}.json`);
  await fs.writeFile(`${file}.tmp`, JSON.stringify(req));
  await fs.rename(`${file}.tmp`, file);
  const responseFile = path.join(dir, `${id}.response.json`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = JSON.parse(await fs.readFile(responseFile, 'utf8')) as DriverResponse;
      if (!res.ok) throw new DriverError(`driver ${req.action} failed: ${res.error ?? 'unknown error'}`);
      return res.result ?? null;
    } catch (err) {
      if (err instanceof DriverError) throw err;
      // Not written yet (ENOENT) or being written: poll again.
    }
    await sleep(100);
  }
  throw new DriverError(
    `no driver answered the ${req.action} request within ${timeoutMs} ms (${file}). ` +
      'Run the suites with scripts/vscode/run-tests.sh, which starts the driver.',
  );
}

export class DriverError extends Error {
  override name = 'DriverError';
}

/** Saves `<results>/<name>.png` of the whole VS Code page; returns its path. */
export async function screenshot(name: string): Promise<string> {
  return (await driverRequest({ action: 'screenshot', name })) as string;
}

export async function click(selector: string, target: FrameTarget & { index?: number; timeoutMs?: number } = {}): Promise<void> {
  await driverRequest({ action: 'click', selector, ...target });
}

export async function fill(selector: string, value: string, target: FrameTarget & { timeoutMs?: number } = {}): Promise<void> {
  await driverRequest({ action: 'fill', selector, value, ...target });
}

export async function press(key: string, target: FrameTarget & { selector?: string; timeoutMs?: number } = {}): Promise<void> {
  await driverRequest({ action: 'press', key, ...target });
}

/** Waits for `selector` and returns the text content of its matches. */
export async function waitFor(
  selector: string,
  target: FrameTarget & { state?: 'attached' | 'visible'; timeoutMs?: number } = {},
): Promise<string[]> {
  const timeout = (target.timeoutMs ?? 30_000) + 10_000;
  return (await driverRequest({ action: 'waitFor', selector, ...target }, timeout)) as string[];
}

export async function textOf(selector: string, target: FrameTarget = {}): Promise<string[]> {
  return (await driverRequest({ action: 'text', selector, ...target })) as string[];
}

export async function evaluate<T = unknown>(expression: string, target: FrameTarget = {}): Promise<T> {
  return (await driverRequest({ action: 'evaluate', expression, ...target })) as T;
}

/** The Chat view's text: every response's text, then the whole page's (follow-ups and labels sit outside the responses). */
export function chatText(): Promise<string> {
  return evaluate<string>(
    "Array.from(document.querySelectorAll('.interactive-response')).map((e) => e.textContent || '').join('\\n') + '\\n' + document.body.innerText",
  );
}

/** Scrolls the Chat view up to the last response's start (its first citations), for a screenshot of the answer's start. */
export async function scrollChatToLastResponse(): Promise<void> {
  await evaluate(
    "(() => { const r = Array.from(document.querySelectorAll('.interactive-response')).pop(); const list = r && r.closest('.monaco-scrollable-element'); if (list) for (let i = 0; i < 40; i++) list.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true })); return !!list; })()",
  );
  await new Promise((r) => setTimeout(r, 500));
}
