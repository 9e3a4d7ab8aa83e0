// What the Docs view's script (docsView.js, type-checked by media/tsconfig.json) gets from the webview host.
declare function acquireVsCodeApi(): {
  postMessage(message: import('../src/views/webviewProtocol').ViewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
};
