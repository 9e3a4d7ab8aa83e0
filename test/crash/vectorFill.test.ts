// kill -9 while a slow embedder's vectors are being filled (the local embedder on the tiny generated ONNX model): the
// killed index opens and answers keyword queries, vector search returns only filled passages, and the next run fills
// the remaining vectors and ends with exactly the passages and vectors of a clean build.
// Run: npx mocha test/crash/vectorFill.test.ts
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR } from '../../scripts/models/tinyEmbedding';
import { openStore } from '../../src/rag/store';
import { needsShared } from '../helpers/shared';
import { WORKSPACE, copyTree, snapshot } from './snapshot';
import { freezeIndexChild, runIndexChild, type ChildRun, type IndexChild } from './child';

const KILLS = Number(process.env.DOCS_RAG_FILL_KILLS ?? 3);

/** Runs the index child with the local tiny model; with `killAfter`, SIGKILL after that many 'vectors' lines (+0..delayMs). */
function runChild(
  child: IndexChild,
  folder: string,
  store: string,
  o: { full?: boolean; killAfter?: { n: number; delayMs: number } } = {},
): Promise<ChildRun> {
  const kill = o.killAfter && { nth: o.killAfter.n, phase: 'vectors', delayMs: o.killAfter.delayMs };
  return runIndexChild(child, [folder, store, `--local=${TINY_MODEL_DIR}`, ...(o.full ? ['--full'] : [])], kill);
}

const vectorLines = (out: string) => out.split('\n').filter((l) => l.startsWith('phase vectors '));

describe('crash safety: kill -9 during background vector filling', function () {
  needsShared('eval/workspace');
  this.timeout(1_800_000);
  let work: string;
  let folder: string;
  let child: IndexChild;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-fill-kill9-'));
    folder = path.join(work, 'docs');
    // The children run from a frozen copy of src/ (as in kill9.test.ts): edits during the run cannot change the chunks.
    child = freezeIndexChild(path.join(work, 'code'));
    copyTree(WORKSPACE, folder, (rel) => !rel.endsWith('.jsonl'));
  });
  after(() => work && fs.rmSync(work, { recursive: true, force: true }));

  it(`survives ${KILLS} kills while vectors are filled, answers in between, then equals a clean build`, async () => {
    const store = path.join(work, 'store');
    const cleanStore = path.join(work, 'clean');
    const clean = await runChild(child, folder, cleanStore);
    assert.equal(clean.code, 0, clean.stderr);
    const batches = vectorLines(clean.stdout).length;
    assert.ok(batches >= 4, `the fill runs in several batches (${batches} progress lines)`);

    const kills: string[] = [];
    let attempts = 0;
    while (kills.length < KILLS) {
      attempts++;
      assert.ok(attempts <= KILLS * 3, `only ${kills.length} of ${KILLS} kills landed during the fill in ${attempts - 1} attempts`);
      // Full runs (every passage rewritten with its vector pending). After the first 'vectors' line the text is written;
      // kill somewhere in the batches after it.
      const killed = await runChild(child, folder, store, { full: true, killAfter: { n: 1 + Math.floor(Math.random() * (batches - 2)), delayMs: 400 } });
      assert.ok(killed.signal === 'SIGKILL' || killed.code === 0, `child failed: ${killed.stderr}`);
      const last = vectorLines(killed.stdout).at(-1);
      if (killed.signal !== 'SIGKILL' || !last) continue;
      kills.push(`after "${last.slice(6)}"`);

      // The killed index opens and answers: keyword search over every passage, vector search over the filled ones only.
      const s = await openStore(store);
      try {
        const counts = await s.vectorCounts();
        assert.ok(counts.total > 0 && counts.filled <= counts.total);
        const hits = await s.fullTextSearch('Cargo Arbeitszeit', { k: 5 });
        assert.ok(hits.length > 0, 'keyword search answers while vectors are missing');
        const [any] = await s.getVectors([hits[0].passage.id]).then((m) => [...m.values()]);
        const query = any ?? new Float32Array(s.meta()!.embedder.dimension).fill(1);
        const vec = await s.vectorSearch(query, { k: 10_000 });
        assert.equal(vec.length, counts.filled, 'vector search returns exactly the filled passages');
        const filledIds = await s.getVectors(vec.map((h) => h.passage.id));
        assert.equal(filledIds.size, vec.length);
      } finally {
        await s.close();
      }

      // The next (incremental) run finishes the remaining vectors.
      const resumed = await runChild(child, folder, store);
      assert.equal(resumed.code, 0, resumed.stderr);
      const result = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!);
      assert.deepEqual(result.vectors, { filled: result.chunks, total: result.chunks });
    }
    console.log(`      ${kills.length} kills in ${attempts} runs: ${kills.join('; ')}`);

    const got = await snapshot(store);
    const want = await snapshot(cleanStore);
    assert.deepEqual(got.duplicateIds, []);
    assert.deepEqual(got.passages, want.passages);
    assert.deepEqual(got.ids, want.ids);
    assert.deepEqual(got.files, want.files);
    // Every vector equals the clean build's (the model is deterministic): nothing half-filled or left as a placeholder.
    const [a, b] = [await openStore(store), await openStore(cleanStore)];
    try {
      assert.deepEqual(await a.vectorCounts(), { filled: want.ids.length, total: want.ids.length });
      const va = await a.getVectors(want.ids);
      const vb = await b.getVectors(want.ids);
      assert.equal(va.size, want.ids.length);
      for (const id of want.ids) assert.deepEqual(Array.from(va.get(id)!), Array.from(vb.get(id)!), id);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
