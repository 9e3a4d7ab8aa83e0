// Stable passage ids.
// id = sha256(path, level, heading path, text, n) where n counts earlier passages of the same file with the same
// level, heading path and text (identical repeated paragraphs stay distinct). The position (`chunkPath`) is left out
// on purpose: inserting a section earlier in the file renumbers chunk paths, but every unchanged passage keeps its
// id, so an incremental re-index only re-embeds what really changed.
import { createHash } from 'node:crypto';
import type { Level } from '../types';

export class PassageIdFactory {
  private readonly seen = new Map<string, number>();

  constructor(private readonly path: string) {}

  next(level: Level, headingPath: readonly string[], text: string): string {
    const key = `${level}\u0000${headingPath.join('\u0001')}\u0000${text}`;
    const n = this.seen.get(key) ?? 0;
    this.seen.set(key, n + 1);
    return createHash('sha256').update(`${this.path}\u0000${key}\u0000${n}`).digest('hex').slice(0, 32);
  }
}
