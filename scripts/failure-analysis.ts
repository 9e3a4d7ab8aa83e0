// Per-question failure analysis of the workspace questions (issue 14): for each question the rank of every evidence item
// in the German column, the English column, the vector list, the bridge list and the final list, with the compound parts,
// the translations and the fusion notes. Writes its index to /tmp/w14-ws (reused when present).
//
//   node --import tsx scripts/failure-analysis.ts                      summary per question, dev + cross-language files
//   VERBOSE=1 [ALL=1] node --import tsx scripts/failure-analysis.ts    the lists for each question under nDCG 0.9 (ALL: every one)
//   FILES=queries-dev.jsonl CONFIG=default OVR='{"prf":true}' …       one file, another configuration, settings overrides
import * as path from 'node:path';
import { openEngine } from '../src/rag/engine';
import { createRetriever } from '../src/rag/search';
import { detectLanguage } from '../src/rag/text/language';
import { loadWorkspaceQueries } from '../src/rag/eval/datasets';
import { matchAll } from '../src/rag/eval/match';
import { WORKSPACE_EXCLUDE } from '../src/rag/eval/gate';
import { evaluateWorkspace } from '../src/rag/eval/runner';
import { analyzeQuery } from '../src/rag/search/analyze';
import { translationList } from '../src/rag/search/termLists';
import { compoundParts } from '../src/rag/text/compounds';
import { currentVocabulary } from '../src/rag/store/vocabulary';
import type { SearchHit } from '../src/rag/types';

async function main() {
  const dir = path.resolve(__dirname, '../../shared/eval/workspace');
  const engine = await openEngine({ folder: dir, storeDir: process.env.STORE ?? '/tmp/w14-ws', config: { ingest: { exclude: WORKSPACE_EXCLUDE } } });
  if ((await engine.store.countPassages()) === 0) {
    const { indexFolder } = await import('../src/rag/index/indexer');
    await indexFolder(engine);
  }
  const files = (process.env.FILES ?? 'queries-dev.jsonl,queries-crosslang-dev.jsonl').split(',');
  const config = process.env.CONFIG ?? 'default';
  const verbose = !!process.env.VERBOSE;
  for (const f of files) {
    const qs = loadWorkspaceQueries(path.join(dir, f));
    const overrides = JSON.parse(process.env.OVR ?? '{}');
    const retr = createRetriever(engine, { config, overrides, detect: detectLanguage });
    const rep = await evaluateWorkspace(retr, qs, { config });
    console.log(`== ${f} ${config} nDCG@10 ${rep.metrics['ndcg@10'].toFixed(3)} R@20 ${rep.metrics['r@20'].toFixed(3)}`);
    for (const [k, v] of Object.entries(rep.byLang)) console.log(`   ${k}: ${v['ndcg@10'].toFixed(3)} / ${v['r@20'].toFixed(3)}`);
    for (const [k, v] of Object.entries(rep.byStyle)) console.log(`   ${k}: ${v['ndcg@10'].toFixed(3)} / ${v['r@20'].toFixed(3)}`);
    if (!verbose) { for (const q of rep.perQuery) console.log(`${q.id} ${q.metrics['ndcg@10'].toFixed(3)} ${q.metrics['r@20'].toFixed(3)}`); continue; }
    const vocab = currentVocabulary(engine.store.dir);
    for (const q of qs) {
      const pq = rep.perQuery.find((p) => p.id === q.id)!;
      if (pq.metrics['ndcg@10'] >= 0.9 && !process.env.ALL) continue;
      const a = analyzeQuery(q.query, { detect: detectLanguage });
      const rank = (hits: SearchHit[]) => {
        const r: string[] = [];
        q.relevant.forEach((e, i) => {
          const at = hits.findIndex((h) => matchAll(h.passage, [e]).length > 0);
          r.push(`${e.grade}:${at < 0 ? '-' : at + 1}`);
        });
        return r.join(',');
      };
      const lv = a.levels;
      const parts = vocab ? compoundParts(q.query, vocab) : '';
      const de = await engine.store.fullTextSearch(parts ? `${q.query} ${parts}` : q.query, { k: 80, lang: 'de', levels: lv });
      const en = await engine.store.fullTextSearch(q.query, { k: 80, lang: 'en', levels: lv });
      const [v] = await engine.embedder.embed([q.query]);
      const vec = await engine.store.vectorSearch(v, { k: 80, levels: lv });
      const tr = translationList(q.query, a.lang, { perWord: 3 });
      const br = tr ? await engine.store.fullTextSearch(tr.text, { k: 80, lang: tr.lang as 'de' | 'en', levels: lv }) : [];
      const res = await retr.retrieve(q.query, { k: 20, context: false });
      console.log(`\n${q.id} [${q.lang} ${q.style} ${q.category}] nDCG ${pq.metrics['ndcg@10'].toFixed(3)} R@20 ${pq.metrics['r@20'].toFixed(3)}  lang=${a.lang} levels=${lv}`);
      console.log(`  Q: ${q.query}`);
      console.log(`  parts: ${parts} | bridge(${tr?.lang}): ${tr?.text ?? ''}`);
      console.log(`  final ${rank(res.hits)} | de ${rank(de)} | en ${rank(en)} | vec ${rank(vec)} | bridge ${rank(br)}`);
      console.log(`  evidence: ${q.relevant.map((e: any) => `${e.path}:${e.page ?? `${e.startLine}-${e.endLine}`}${e.quote ? ' "' + e.quote.slice(0, 40) + '"' : ''}`).join('; ')}`);
      console.log(`  top5: ${res.hits.slice(0, 5).map((h) => `${h.passage.path.replace(/^.*\//, '')}:${JSON.stringify(h.passage.loc).slice(0, 30)} [${h.passage.headingPath.slice(-1)[0]?.slice(0, 30) ?? ''}]`).join(' | ')}`);
      for (const s of res.trace) if (s.notes?.length && /fusion|term/.test(s.name)) console.log(`  ${s.name}: ${s.notes.join(' ; ')}`);
    }
  }
  await engine.close?.();
}
main();
