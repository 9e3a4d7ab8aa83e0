// The file protocol between a suite running inside the VS Code extension host and the Playwright driver
// that owns the browser page. Types only plus folder names; no `vscode`, no Playwright.
//
// The suite writes `<results>/driver-requests/<id>.json` (atomically: write `.tmp`, then rename) holding a
// DriverRequest; the driver polls that folder, performs the action on the page and writes
// `<results>/driver-requests/<id>.response.json` holding a DriverResponse. <results> is the env var
// DOCS_RAG_TEST_RESULTS (set by the runner on the server, so the extension host inherits it).

export const REQUESTS_DIR = 'driver-requests';
export const SUMMARY_FILE = 'vscode-summary.json';
export const RESULTS_ENV = 'DOCS_RAG_TEST_RESULTS';

/** Which document an action runs in. */
export interface FrameTarget {
  /** 'page' (default): the workbench page. 'webview': the content frame of a webview. */
  frame?: 'page' | 'webview';
  /** Only webviews of this extension (default 'docs-rag.docs-rag'; '' for any). */
  extensionId?: string;
  /** Only webviews whose outer iframe URL contains this text (e.g. 'purpose=webviewView'). */
  webviewUrlIncludes?: string;
}

export type DriverRequest =
  /** Saves a PNG of the whole page as `<results>/<name>.png`; result: the file path. */
  | { action: 'screenshot'; name: string }
  /** Clicks the first (or `index`-th) element matching `selector`; result: null. */
  | ({ action: 'click'; selector: string; index?: number; timeoutMs?: number } & FrameTarget)
  /** Fills an input/textarea; result: null. */
  | ({ action: 'fill'; selector: string; value: string; timeoutMs?: number } & FrameTarget)
  /** Presses a key (Playwright key name such as 'Enter', 'Control+A') on the element or the page; result: null. */
  | ({ action: 'press'; key: string; selector?: string; timeoutMs?: number } & FrameTarget)
  /** Waits until `selector` is attached/visible; result: the text content of the matches (string[]). */
  | ({ action: 'waitFor'; selector: string; state?: 'attached' | 'visible'; timeoutMs?: number } & FrameTarget)
  /** Text content of all matches of `selector` now (string[], possibly empty). */
  | ({ action: 'text'; selector: string } & FrameTarget)
  /** Evaluates a JavaScript expression in the frame; result: its JSON-serialisable value. */
  | ({ action: 'evaluate'; expression: string } & FrameTarget)
  /** Lists the frames the driver sees (for debugging selectors); result: {name, url}[]. */
  | { action: 'frames' };

export interface DriverResponse {
  ok: boolean;
  result?: unknown;
  error?: string;
}

/** What a suite's index writes when it finishes. */
export interface SuiteSummary {
  passed: number;
  failed: number;
  failures: { title: string; error: string }[];
}
