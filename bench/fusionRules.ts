// Fusion rules for the vector list of the builtin embedder, compared offline (EVALUATION.md §5): per query the keyword
// list (config bm25) and the vector list (config vector, exact search) are taken once from the real retriever and store,
// then fused by each rule, reduced to one hit per place (as every configuration does; NESTED=1 keeps both) and scored by
// the eval harness. Stores: any index built by `docs-rag eval --store DIR`.
//
//   node --import tsx bench/fusionRules.ts ws=DIR scifact=DIR cranfield=DIR cisi=DIR xquad-de=DIR
import { openEngine } from '../src/rag/engine';
import { loadBeir, loadWorkspaceQueries } from '../src/rag/eval/datasets';
import { evaluateBeir, evaluateWorkspace } from '../src/rag/eval/runner';
import { createRetriever } from '../src/rag/search';
import { reciprocalRankFusion } from '../src/rag/search/fusion';
import { collapseNested } from '../src/rag/search/nested';
import { detectLanguage } from '../src/rag/text/language';
import type { SearchHit } from '../src/rag/types';
import type { Retriever } from '../src/rag/search/types';
import { adaptiveVectorWeight, keywordCoverage } from '../src/rag/search/vectorWeight';

type Rule = (kw: SearchHit[], vec: SearchHit[], q: string) => SearchHit[];
const rrf = (w: number, k = 60): Rule => (kw, vec) => reciprocalRankFusion([kw, vec], k, [1, w]);
const coverage = (q: string, kw: SearchHit[], top = 10) => keywordCoverage(q, kw, top);
function overlap(kw: SearchHit[], vec: SearchHit[], n = 10): number {
  const a = new Set(kw.slice(0, n).map((h) => h.passage.id));
  return vec.slice(0, n).filter((h) => a.has(h.passage.id)).length / n;
}
const rules: Record<string, Rule> = {
  bm25: (kw) => kw,
  'fixed 0.5 (old default)': rrf(0.5),
  'fixed 0.3': rrf(0.3),
  'fixed 0.2': rrf(0.2),
  'fixed 0.1': rrf(0.1),
  'overlap: 0.5 x overlap': (kw, vec, q) => rrf(0.5 * overlap(kw, vec))(kw, vec, q),
  'coverage: 0.1 + 0.6 (1 - c)': (kw, vec, q) => rrf(0.1 + 0.6 * (1 - coverage(q, kw, 10)))(kw, vec, q),
  'coverage: 0 + 1.0 (1 - c)': (kw, vec, q) => rrf(1 - coverage(q, kw, 10))(kw, vec, q),
  'shipped: coverage, 0.5 if disjoint': (kw, vec, q) => rrf(adaptiveVectorWeight(q, kw, vec, [0.1, 0.7], 0.5).weight)(kw, vec, q),
};
async function main() {
  const sets = process.argv.slice(2);
  const results: Record<string, Record<string, number>> = {};
  for (const spec of sets) {
    const [name, storeDir] = spec.split('=');
    const ws = name === 'ws' || name === 'wsx';
    const engine = await openEngine({ folder: '/tmp', storeDir });
    const store = engine.store;
    const wrapped = Object.create(store);
    wrapped.vectorSearch = (v: Float32Array, o: any) => store.vectorSearch(v, { ...o, exact: true });
    const eng = { store: wrapped, embedder: engine.embedder };
    const kwR = createRetriever(eng, { config: 'bm25', detect: detectLanguage, overrides: { collapseNested: false } });
    const vecR = createRetriever(eng, { config: 'vector', detect: detectLanguage, overrides: { collapseNested: false } });
    const cache = new Map<string, { kw: SearchHit[]; vec: SearchHit[]; analysis: any }>();
    const get = async (q: string) => {
      let c = cache.get(q);
      if (!c) {
        const a = await kwR.retrieve(q, { k: 80, context: false });
        const b = await vecR.retrieve(q, { k: 80, context: false });
        c = { kw: a.hits, vec: b.hits, analysis: a.analysis };
        cache.set(q, c);
      }
      return c;
    };
    const covs: number[] = [];
    for (const [rn, rule] of Object.entries(rules)) {
      const r: Retriever = {
        retrieve: async (q) => {
          const c = await get(q);
          if (rn === 'bm25') { covs.push(coverage(q, c.kw)); if (ws && process.env.PERQ) console.error('COV', coverage(q, c.kw).toFixed(2), overlap(c.kw, c.vec).toFixed(2), q); }
          const fused = rule(c.kw.map((h) => ({ ...h })), c.vec.map((h) => ({ ...h })), q);
          const hits = (process.env.NESTED ? fused : collapseNested(fused).hits).slice(0, 20);
          return { hits, analysis: c.analysis, trace: [], warnings: [] };
        },
      };
      const rep = ws
        ? await evaluateWorkspace(r, loadWorkspaceQueries(name === 'ws' ? '/work/shared/eval/workspace/queries-dev.jsonl' : '/work/shared/eval/workspace/queries-crosslang-dev.jsonl'), { config: rn })
        : await evaluateBeir(r, loadBeir(`/work/shared/eval/${name}`), { config: rn });
      (results[rn] ??= {})[name] = rep.metrics['ndcg@10'];
      if (ws && process.env.PERQ) for (const pq of rep.perQuery) console.error(rn, pq.id, pq.lang, pq.style, pq.metrics['ndcg@10'].toFixed(3));
      if (ws) { (results[rn] ??= {})[name + '-R20'] = rep.metrics['r@20']; for (const l of ['de','en']) results[rn][name+'-'+l] = rep.byLang[l]?.['ndcg@10'] ?? 0; }
    }
    console.error(name, 'mean coverage', (covs.reduce((a, b) => a + b, 0) / covs.length).toFixed(3));
    await engine.close();
  }
  const cols = Object.keys(Object.values(results)[0]);
  console.log(['rule', ...cols].join('\t'));
  for (const [rn, m] of Object.entries(results)) console.log([rn.padEnd(22), ...cols.map((c) => m[c].toFixed(3))].join('\t'));
}
main();
