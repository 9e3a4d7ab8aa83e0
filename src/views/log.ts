// The extension's log: one LogOutputChannel ("Docs RAG") for lifecycle events, per-file problems and query traces.
import * as vscode from 'vscode';
import type { TraceSpan } from '../rag/types';

export type Log = vscode.LogOutputChannel;

export function createLog(): Log {
  return vscode.window.createOutputChannel('Docs RAG', { log: true });
}

/** One line per span: names, durations and counts only (traces never hold document text). */
export function formatTrace(label: string, spans: TraceSpan[]): string {
  const parts = spans.map((s) => {
    const counts = s.counts ? ' ' + Object.entries(s.counts).map(([k, v]) => `${k}=${v}`).join(' ') : '';
    const notes = s.notes?.length ? ` (${s.notes.join('; ')})` : '';
    return `${s.name} ${s.ms.toFixed(1)}ms${counts}${notes}`;
  });
  const total = spans.reduce((sum, s) => sum + s.ms, 0);
  return `trace ${label}: ${parts.join(' | ')} | total ${total.toFixed(1)}ms`;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
