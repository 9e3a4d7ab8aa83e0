// `docs-rag eval` end to end: a small BEIR set (built through the real store) and workspace questions over real files,
// checking the --json contract and that the metrics respond to the data (a judged document found at rank 1 scores 1).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SHARED, needsShared } from '../helpers/shared';

const ROOT = path.resolve(__dirname, '../..');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const lastJson = (s: string) => JSON.parse(s.trim().split('\n').pop()!);

describe('docs-rag eval (CLI)', function () {
  needsShared('eval/scifact', 'eval/workspace');
  this.timeout(300_000);
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-cli-'));
  });
  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  it('--beir: builds a temporary index through the real store and reports the JSON summary', () => {
    const dir = path.join(tmp, 'beir');
    fs.mkdirSync(path.join(dir, 'qrels'), { recursive: true });
    const corpus = fs.readFileSync(path.join(SHARED, 'eval/scifact/corpus.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 400);
    fs.writeFileSync(path.join(dir, 'corpus.jsonl'), `${corpus.join('\n')}\n`);
    const ids = new Set(corpus.map((l) => JSON.parse(l)._id as string));
    const qrels = fs.readFileSync(path.join(SHARED, 'eval/scifact/qrels/test.tsv'), 'utf8').split('\n').slice(1).filter((l) => l && ids.has(l.split('\t')[1]));
    fs.writeFileSync(path.join(dir, 'qrels/test.tsv'), `query-id\tcorpus-id\tscore\n${qrels.join('\n')}\n`);
    const qids = new Set(qrels.map((l) => l.split('\t')[0]));
    const queries = fs.readFileSync(path.join(SHARED, 'eval/scifact/queries.jsonl'), 'utf8').split('\n').filter((l) => l && qids.has(JSON.parse(l)._id));
    fs.writeFileSync(path.join(dir, 'queries.jsonl'), `${queries.join('\n')}\n`);
    const r = cli(['eval', '--beir', dir, '--store', path.join(tmp, 'beir-store'), '--config', 'bm25', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = lastJson(r.stdout);
    for (const key of ['config', 'queries', 'ndcg@10', 'recall@20', 'mrr@10', 'p@5', 'map', 'byCategory', 'byLang', 'latency']) assert.ok(key in out, key);
    assert.equal(out.config, 'bm25');
    assert.equal(out.queries, qids.size);
    assert.ok(out['ndcg@10'] > 0.5 && out['ndcg@10'] <= 1, `nDCG ${out['ndcg@10']}`);
    assert.ok(out.latency.p50_ms > 0 && out.latency.p95_ms >= out.latency.p50_ms);
    // a second run reuses the index; a non-empty foreign --store is refused on --reindex
    const again = cli(['eval', '--beir', dir, '--store', path.join(tmp, 'beir-store'), '--config', 'bm25,hybrid', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const both = lastJson(again.stdout).configs;
    assert.deepEqual(both.map((c: { config: string }) => c.config), ['bm25', 'hybrid']);
    // The second configuration is compared with the first question by question.
    const paired = both[1].paired;
    assert.equal(paired.against, 'bm25');
    assert.equal(paired.questions, out.queries);
    assert.ok(Math.abs(paired.mean - (both[1]['ndcg@10'] - both[0]['ndcg@10'])) < 2e-4, JSON.stringify(paired));
    assert.ok(paired.low <= paired.mean && paired.mean <= paired.high && paired.p >= 0 && paired.p <= 1, JSON.stringify(paired));
    assert.equal(both[0].paired, undefined);
    assert.doesNotMatch(again.stderr, /building a temporary index/);
    const refused = cli(['eval', '--beir', dir, '--store', path.join(tmp, 'beir-store'), '--reindex']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /already holds/);
  });

  it('--folder --queries: workspace questions over real files, metrics by category and language', () => {
    const folder = path.join(tmp, 'ws');
    for (const f of ['gesetze/kschg.md', 'cargo-book/reference/publishing.md']) {
      fs.mkdirSync(path.dirname(path.join(folder, f)), { recursive: true });
      fs.copyFileSync(path.join(SHARED, 'eval/workspace', f), path.join(folder, f));
    }
    const qs = fs
      .readFileSync(path.join(SHARED, 'eval/workspace/queries-dev.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((q) => q.relevant.every((e: { path: string }) => e.path === 'gesetze/kschg.md' || e.path === 'cargo-book/reference/publishing.md'));
    assert.ok(qs.length >= 2, 'dev questions with evidence in these files');
    fs.writeFileSync(path.join(folder, 'questions.jsonl'), qs.map((q) => JSON.stringify(q)).join('\n'));
    const r = cli(['eval', '--folder', folder, '--queries', path.join(folder, 'questions.jsonl'), '--store', path.join(tmp, 'ws-store'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = lastJson(r.stdout);
    assert.equal(out.config, 'default');
    assert.equal(out.queries, qs.length);
    assert.ok(out['recall@20'] > 0.5, `R@20 ${out['recall@20']}`);
    assert.deepEqual(Object.keys(out.byLang).sort(), [...new Set(qs.map((q) => q.lang as string))].sort());
    assert.ok(Object.keys(out.byCategory).length >= 1);
    const human = cli(['eval', '--folder', folder, '--queries', path.join(folder, 'questions.jsonl'), '--store', path.join(tmp, 'ws-store'), '--config', 'bm25']);
    assert.match(human.stdout, /\| bm25 \| \d+ \| [\d.]+ \|/);
    assert.doesNotMatch(human.stdout, /question by question/, 'one configuration: nothing to compare');
    assert.equal(cli(['eval', '--folder', folder]).code, 2, 'missing --queries is a usage error');
    // A folder or questions file that does not exist is named (a missing folder was indexed as empty and measured).
    const noFolder = cli(['eval', '--folder', path.join(tmp, 'nope'), '--queries', path.join(folder, 'questions.jsonl')]);
    assert.equal(noFolder.code, 2);
    assert.match(noFolder.stderr, /folder not found: .*nope/);
    const noFile = cli(['eval', '--folder', folder, '--queries', path.join(tmp, 'nope.jsonl')]);
    assert.equal(noFile.code, 2);
    assert.match(noFile.stderr, /questions file not found: .*nope\.jsonl/);
  });
});
