// A small generated document folder, indexed with the defaults in its own store: the fixture of the search suites that
// test one rule on made-up words (never the evaluation workspace).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';

export interface TempIndex {
  folder: string;
  engine: Engine;
  /** Writes (or overwrites) a document, creating its folders. */
  write(rel: string, text: string): void;
  /** Closes the engine and removes the folder with its store. */
  close(): Promise<void>;
}

/** A new folder with `files` (relative path → text), indexed once without errors. */
export async function indexedTempFolder(prefix: string, files: Record<string, string>): Promise<TempIndex> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
    fs.writeFileSync(path.join(folder, rel), text);
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  const engine = await openEngine({ folder });
  const res = await indexFolder(engine);
  assert.equal(res.errors.length, 0, JSON.stringify(res.errors));
  return {
    folder,
    engine,
    write,
    async close() {
      await engine.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** `n` German filler sentences naming `words` in turn (word frequencies for the compound and spelling rules). */
export const germanSentences = (words: string[], n: number): string =>
  Array.from({ length: n }, (_, i) => `Die Regel ${i} gilt für die ${words[i % words.length]} und nicht für andere Dinge.`).join(' ');
