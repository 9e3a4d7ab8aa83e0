// Splits streamed answer text into plain text and [n] citation markers, holding back a partial marker ("[1", "[12")
// that may complete in the next piece. Also handles grouped markers such as [1, 3] and [2-4]. With `isKnown`, markers
// that match no source are dropped while streaming (they are never shown, not removed afterwards).

export type StreamPiece = { kind: 'text'; text: string } | { kind: 'cite'; n: number; raw: string };

const MARKER = /\[(\d+(?:\s*[,;–-]\s*\d+)*)\]/g;

function expand(inside: string): number[] {
  const out: number[] = [];
  for (const part of inside.split(/\s*[,;]\s*/)) {
    const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (b >= a && b - a < 50) for (let i = a; i <= b; i++) out.push(i);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
  }
  return out;
}

export function splitCitations(text: string): StreamPiece[] {
  const pieces: StreamPiece[] = [];
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    if (m.index! > last) pieces.push({ kind: 'text', text: text.slice(last, m.index) });
    for (const n of expand(m[1])) pieces.push({ kind: 'cite', n, raw: m[0] });
    last = m.index! + m[0].length;
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last) });
  return pieces;
}

export class CitationStreamer {
  private buffer = '';

  private readonly emit: (piece: StreamPiece) => void;

  constructor(emit: (piece: StreamPiece) => void, isKnown?: (n: number) => boolean) {
    this.emit = isKnown ? (piece) => (piece.kind === 'cite' && !isKnown(piece.n) ? undefined : emit(piece)) : emit;
  }

  push(text: string): void {
    this.buffer += text;
    // Hold back an unfinished marker at the end: "[" followed only by digits, spaces, commas or dashes.
    const open = this.buffer.lastIndexOf('[');
    let ready = this.buffer;
    if (open >= 0 && /^\[[\d\s,;–-]*$/.test(this.buffer.slice(open)) && this.buffer.length - open < 24) {
      ready = this.buffer.slice(0, open);
      this.buffer = this.buffer.slice(open);
    } else {
      this.buffer = '';
    }
    if (ready) splitCitations(ready).forEach(this.emit);
  }

  end(): void {
    if (this.buffer) splitCitations(this.buffer).forEach(this.emit);
    this.buffer = '';
  }
}
