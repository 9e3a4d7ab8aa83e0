// Metric formulas and the FORMAT.md relevance rules, checked against values computed by hand.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadBeir, loadWorkspaceQueries } from '../../src/rag/eval/datasets';
import { matchAll, matchesEvidence, normalizeText, type Evidence } from '../../src/rag/eval/match';
import { pairedDifference, percentile, scoreRanking } from '../../src/rag/eval/metrics';
import { aggregate } from '../../src/rag/eval/runner';
import { WORKSPACE, requireShared } from '../helpers/shared';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

describe('eval: metrics', () => {
  it('computes P@k, R@k, MRR@10, nDCG@10 (exponential gain) and MAP by hand', () => {
    // evidence: item0 grade 2, item1 grade 1; ranking: miss, item1, item0, miss
    const m = scoreRanking({ matches: [[], [1], [0], []], grades: [2, 1] });
    close(m['mrr@10'], 1 / 2);
    close(m['p@1'], 0);
    close(m['p@3'], 2 / 3);
    close(m['r@1'], 0);
    close(m['r@3'], 1);
    const dcg = (2 ** 1 - 1) / Math.log2(3) + (2 ** 2 - 1) / Math.log2(4);
    const idcg = (2 ** 2 - 1) / Math.log2(2) + (2 ** 1 - 1) / Math.log2(3);
    close(m['ndcg@10'], dcg / idcg);
    close(m.map, (1 / 2 + 2 / 3) / 2);
  });

  it('claim-once: a second chunk matching the same evidence gains nothing, so nDCG stays ≤ 1', () => {
    const m = scoreRanking({ matches: [[0], [0], [0]], grades: [2] });
    close(m['ndcg@10'], 1);
    close(m['mrr@10'], 1);
    close(m["p@3"], 1);
    // a chunk matching two items takes the highest-graded one; the next chunk can take the other
    const two = scoreRanking({ matches: [[0, 1], [0, 1]], grades: [1, 2] });
    close(two['ndcg@10'], 1);
  });

  it('linear gain for BEIR-style graded qrels', () => {
    const m = scoreRanking({ matches: [[1], [0]], grades: [4, 1] }, 'linear');
    const dcg = 1 / Math.log2(2) + 4 / Math.log2(3);
    const idcg = 4 / Math.log2(2) + 1 / Math.log2(3);
    close(m['ndcg@10'], dcg / idcg);
  });

  it('percentiles (nearest rank) and aggregation by category/lang/style', () => {
    assert.equal(percentile([5, 1, 3, 2, 4], 50), 3);
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100], 95), 19);
    const mk = (id: string, lang: string, category: string, ndcg: number) => ({
      id, lang, category, style: 'exact', metrics: { 'ndcg@10': ndcg }, ms: 10, stages: { 'full-text': 2 }, warnings: [],
    });
    const r = aggregate('x', [mk('a', 'de', 'factual', 1), mk('b', 'en', 'factual', 0), mk('c', 'en', 'procedural', 0.5)]);
    close(r.metrics['ndcg@10'], 0.5);
    close(r.byLang.en['ndcg@10'], 0.25);
    assert.equal(r.byCategory.factual.n, 2);
    assert.equal(r.latency.stages['full-text'].p50_ms, 2);
  });
});

describe('eval: relevance matching (FORMAT.md §5)', () => {
  const base = { path: 'gesetze/x.md', text: 'Die Klage ist innerhalb von drei\u00a0Wochen\nzu erheben.' };
  it('line ranges overlap, pages include, quotes match after normalisation', () => {
    const line: Evidence = { path: 'gesetze/x.md', startLine: 10, endLine: 12, grade: 2 };
    assert.ok(matchesEvidence({ ...base, loc: { startLine: 12, endLine: 20 } }, line));
    assert.ok(matchesEvidence({ ...base, loc: { startLine: 1, endLine: 10 } }, line));
    assert.ok(!matchesEvidence({ ...base, loc: { startLine: 13, endLine: 20 } }, line));
    assert.ok(!matchesEvidence({ ...base, path: 'other.md', loc: { startLine: 10, endLine: 12 } }, line));
    const page: Evidence = { path: 'gesetze/x.md', page: 3, grade: 1 };
    assert.ok(matchesEvidence({ ...base, loc: { page: 2, pageEnd: 3 } }, page));
    assert.ok(!matchesEvidence({ ...base, loc: { page: 4 } }, page));
    const quote: Evidence = { path: 'gesetze/x.md', quote: 'innerhalb von drei Wochen zu erheben', grade: 2 };
    assert.ok(matchesEvidence({ ...base, loc: {} }, quote));
    assert.ok(!matchesEvidence({ ...base, text: 'INNERHALB von drei Wochen zu erheben', loc: {} }, quote), 'case-sensitive');
    assert.equal(normalizeText(' a\u00a0 b\n\tc '), 'a b c');
    const long: Evidence = { path: 'gesetze/x.md', quote: `${'x'.repeat(60)} ${'y'.repeat(60)}`, grade: 2 };
    assert.ok(!matchesEvidence({ ...base, text: 'x'.repeat(60), loc: {} }, long));
    assert.ok(matchesEvidence({ ...base, text: 'x'.repeat(60), loc: {} }, long, { quoteEdges: true }));
    assert.deepEqual(matchAll({ ...base, loc: { startLine: 11, endLine: 11 } }, [page, line, quote]), [1, 2]);
  });
});

describe('eval: dataset loaders', () => {
  it('reads the shared workspace dev questions', () => {
    requireShared('eval/workspace/queries-dev.jsonl');
    const qs = loadWorkspaceQueries(path.join(WORKSPACE, 'queries-dev.jsonl'));
    assert.equal(qs.length, 30);
    assert.ok(qs.every((q) => q.relevant.length > 0 && (q.lang === 'de' || q.lang === 'en')));
  });

  it('reads the BEIR layout, keeps judged queries only and drops zero grades; bad lines name the line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beir-'));
    fs.mkdirSync(path.join(dir, 'qrels'));
    fs.writeFileSync(path.join(dir, 'corpus.jsonl'), '{"_id":"d1","title":"T","text":"x"}\n{"_id":"d2","text":"y"}\n');
    fs.writeFileSync(path.join(dir, 'queries.jsonl'), '{"_id":"q1","text":"x?"}\n{"_id":"q2","text":"z?"}\n');
    fs.writeFileSync(path.join(dir, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n');
    const set = loadBeir(dir);
    assert.equal(set.corpus.length, 2);
    assert.deepEqual(set.queries.map((q) => q.id), ['q1']);
    assert.deepEqual([...set.qrels.get('q1')!.keys()], ['d1']);
    fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"query":"x","relevant":[{"path":"a","page":1,"grade":2}]}\n{oops\n');
    assert.throws(() => loadWorkspaceQueries(path.join(dir, 'bad.jsonl')), /bad\.jsonl:2/);
  });

  it('pairedDifference: a shift every question shares is outside the noise; one that some questions gain and others lose is not', () => {
    const a = Array.from({ length: 200 }, (_, i) => (i % 10) / 10);
    const same = pairedDifference(a, a);
    assert.deepEqual([same.mean, same.low, same.high, same.p, same.wins, same.losses], [0, 0, 0, 1, 0, 0]);
    // Every question 0.05 better: the interval excludes 0 and no random sign pattern reaches the mean.
    const shifted = pairedDifference(a, a.map((x) => x + 0.05));
    close(shifted.mean, 0.05);
    assert.ok(shifted.low > 0 && shifted.high >= shifted.low, JSON.stringify(shifted));
    assert.equal(shifted.p, 0);
    assert.deepEqual([shifted.wins, shifted.losses], [200, 0]);
    // 101 questions gain 0.2 and 99 lose 0.2: a mean of +0.002 that is noise (the interval holds 0, p near 1).
    const mixed = pairedDifference(a, a.map((x, i) => x + (i < 101 ? 0.2 : -0.2)));
    close(mixed.mean, 0.002);
    assert.ok(mixed.low < 0 && mixed.high > 0, JSON.stringify(mixed));
    assert.ok(mixed.p > 0.5, JSON.stringify(mixed));
    assert.deepEqual([mixed.wins, mixed.losses], [101, 99]);
    // Seeded: the same figures on every run.
    assert.deepEqual(pairedDifference(a, a.map((x, i) => x + (i < 101 ? 0.2 : -0.2))), mixed);
    assert.throws(() => pairedDifference([1], [1, 2]), /1 and 2 questions/);
  });
});
