// Collects trace spans for one query: stage names, durations and counts — never document text.
import type { TraceSpan } from '../types';

export class Tracer {
  readonly spans: TraceSpan[] = [];

  /** Times `fn` as one span; `counts` derives counts from its result (no text). */
  async span<T>(name: string, fn: () => Promise<T> | T, counts?: (result: T) => Record<string, number>): Promise<T> {
    const start = performance.now();
    const span: TraceSpan = { name, ms: 0 };
    this.spans.push(span);
    try {
      const result = await fn();
      if (counts) span.counts = counts(result);
      return result;
    } finally {
      span.ms = round(performance.now() - start);
    }
  }

  /** Adds a note (e.g. "skipped: no chat model") to the most recent span with that name, or a new empty span. */
  note(name: string, note: string): void {
    let span = [...this.spans].reverse().find((s) => s.name === name);
    if (!span) {
      span = { name, ms: 0 };
      this.spans.push(span);
    }
    (span.notes ??= []).push(note);
  }

  /** Records a span measured elsewhere (e.g. one of several stages that ran in parallel). */
  record(name: string, ms: number, counts?: Record<string, number>, notes?: string[]): TraceSpan {
    const span: TraceSpan = { name, ms: round(ms) };
    if (counts) span.counts = counts;
    if (notes?.length) span.notes = notes;
    this.spans.push(span);
    return span;
  }

  totalMs(): number {
    return round(this.spans.reduce((sum, s) => sum + s.ms, 0));
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** Renders a trace as an aligned text table for `--trace`. */
export function formatTrace(spans: TraceSpan[]): string {
  const lines = spans.map((s) => {
    const counts = s.counts ? Object.entries(s.counts).map(([k, v]) => `${k}=${v}`).join(' ') : '';
    const notes = s.notes?.length ? `  [${s.notes.join('; ')}]` : '';
    return `${s.name.padEnd(14)} ${s.ms.toFixed(1).padStart(8)} ms  ${counts}${notes}`;
  });
  return lines.join('\n');
}

/** Measures one async call and returns its result with the elapsed milliseconds (for spans of parallel work). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}
