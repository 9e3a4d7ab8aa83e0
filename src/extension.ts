// VS Code entry point: only wires the adapters in src/views to the engine in src/rag.
import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {}

export function deactivate(): void {}
