// A real LogOutputChannel for handlers created inside tests.
import * as vscode from 'vscode';

let log: vscode.LogOutputChannel | undefined;

export function testLog(): vscode.LogOutputChannel {
  log ??= vscode.window.createOutputChannel('Docs RAG (tests)', { log: true });
  return log;
}
