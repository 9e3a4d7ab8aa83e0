// kill -9 at random moments of an index run must leave an index that opens and answers, and the next run must end with
// exactly the passages of a clean build (no duplicates, nothing stale). Run: npx mocha test/crash/kill9.test.ts
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore } from '../../src/rag/store';
import { REALDOCS, WORKSPACE, copyTree, snapshot } from './snapshot';
import { freezeIndexChild, runIndexChild, type ChildRun, type IndexChild } from './child';
import { needsShared } from '../helpers/shared';

// The children run from a frozen copy of src/ (made in before()), so source edits during the run cannot change the chunks
// between the killed runs and the clean build.
let child: IndexChild;
const KILLS = Number(process.env.DOCS_RAG_KILLS ?? 10);
const REALDOC_PICK = ['md/ArbZG.md', 'docx/ArbZG.docx', 'pdf/TAMReview.pdf', 'html/wikipedia-mozilla.html', 'xlsx/testEXCEL.xlsx', 'pptx/testPPT_various.pptx', 'pdf/invalid.pdf', 'docx/testWORD_protected_passtika.docx'];

/**
 * kill: SIGKILL once the child has printed `nth` progress lines (of `phase`, or of any phase), after a further random
 * 0..delayMs ms — so kills land in parsing, embedding, the write commits and optimize.
 */
function runChild(folder: string, store: string, o: { full?: boolean; kill?: { nth: number; phase?: string; delayMs: number } }): Promise<ChildRun> {
  return runIndexChild(child, [folder, store, ...(o.full ? ['--full'] : [])], o.kill);
}

function mutate(folder: string, round: number): void {
  // Some real work for the next run: an edit, a delete, a rename and a new file.
  const md = path.join(folder, 'cargo-book/faq.md');
  if (fs.existsSync(md)) fs.appendFileSync(md, `\n\nRound ${round}: an added paragraph about crash safety number ${round}.\n`);
  const files = fs.readdirSync(path.join(folder, 'gesetze')).filter((f) => f.endsWith('.md'));
  if (round % 3 === 0 && files.length > 3) fs.rmSync(path.join(folder, 'gesetze', files[0]));
  if (round % 3 === 1 && files.length > 1) fs.renameSync(path.join(folder, 'gesetze', files[1]), path.join(folder, 'gesetze', `renamed-${round}-${files[1]}`));
  if (round % 3 === 2) fs.writeFileSync(path.join(folder, `new-${round}.md`), `# New ${round}\n\nA new file written in round ${round} about kill safety.\n`);
}

describe('crash safety: kill -9 during indexing', function () {
  needsShared('eval/workspace', 'eval/realdocs');
  this.timeout(1_800_000);
  let work: string;
  let folder: string;
  let store: string;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-kill9-'));
    folder = path.join(work, 'docs');
    store = path.join(work, 'store');
    child = freezeIndexChild(path.join(work, 'code'));
    copyTree(WORKSPACE, folder, (rel) => !rel.endsWith('.jsonl'));
    for (const rel of REALDOC_PICK) {
      fs.mkdirSync(path.join(folder, 'realdocs', path.dirname(rel)), { recursive: true });
      fs.copyFileSync(path.join(REALDOCS, rel), path.join(folder, 'realdocs', rel));
    }
  });
  after(() => work && fs.rmSync(work, { recursive: true, force: true }));

  it(`survives ${KILLS} kills at random moments and then equals a clean build`, async () => {
    // Learn how many progress events a full run has, so kills land anywhere in it (scan, parse, embed, write, optimize).
    const probe = await runChild(folder, path.join(work, 'probe'), {});
    assert.equal(probe.code, 0, probe.stderr);
    const fullEvents = probe.stdout.split('\n').filter((l) => l.startsWith('phase ')).length;
    const writeEvents = probe.stdout.split('\n').filter((l) => l.startsWith('phase write ')).length;
    fs.rmSync(path.join(work, 'probe'), { recursive: true, force: true });

    const kills: string[] = [];
    let attempts = 0;
    while (kills.length < KILLS) {
      attempts++;
      assert.ok(attempts <= KILLS * 3, `only ${kills.length} of ${KILLS} kills landed in ${attempts - 1} attempts`);
      if (attempts > 1) mutate(folder, attempts);
      // Mostly full runs (every file re-parsed, re-embedded and replaced: long write phases), some incremental ones.
      const full = attempts % 4 !== 0;
      const target = attempts % 3;
      const kill =
        target === 0
          ? { nth: 1 + Math.floor(Math.random() * fullEvents), delayMs: 250 } // anywhere (mostly parse/embed)
          : target === 1
            ? { phase: 'write', nth: 1 + Math.floor(Math.random() * Math.max(1, writeEvents)), delayMs: 300 } // inside a write
            : { phase: 'optimize', nth: 1, delayMs: 1500 }; // inside index building / optimize
      const killed = await runChild(folder, store, { full, kill });
      const phases = killed.stdout.split('\n').filter((l) => l.startsWith('phase ')).map((l) => l.slice(6));
      assert.ok(killed.signal === 'SIGKILL' || killed.code === 0, `child failed: ${killed.stderr}`);
      if (killed.signal === 'SIGKILL') kills.push(`${full ? 'full' : 'incr'} run at ${killed.ms} ms, after "${phases.at(-1) ?? 'start-up'}"`);

      // The killed index opens and answers.
      if (fs.existsSync(path.join(store, 'meta.json'))) {
        const s = await openStore(store);
        try {
          const n = await s.countPassages();
          if (n > 0) {
            const hits = await s.fullTextSearch('Cargo Arbeitszeit', { k: 5 });
            assert.ok(hits.length > 0, 'an index with passages answers a keyword query');
            const [first] = await s.getPassages([hits[0].passage.id]);
            assert.ok(first, 'a hit can be read back');
          }
          await s.listFiles();
        } finally {
          await s.close();
        }
      }

      // The resumed run completes.
      const resumed = await runChild(folder, store, {});
      assert.equal(resumed.code, 0, resumed.stderr);
    }
    console.log(`      ${kills.length} kills in ${attempts} runs: ${kills.join('; ')}`);

    const cleanStore = path.join(work, 'clean');
    const clean = await runChild(folder, cleanStore, {});
    assert.equal(clean.code, 0, clean.stderr);
    const got = await snapshot(store);
    const want = await snapshot(cleanStore);
    assert.deepEqual(got.duplicateIds, []);
    assert.equal(got.passages.length, want.passages.length);
    assert.deepEqual(got.passages, want.passages);
    assert.deepEqual(got.ids, want.ids);
    assert.deepEqual(got.files, want.files);
    // The reference graph too: exactly the rows of a clean build, resolving alike (none stale, none missing).
    assert.ok(want.links.length > 0, 'the clean build has links');
    assert.deepEqual(got.links, want.links);
    assert.equal(got.resolvedLinks, want.resolvedLinks);
  });
});
