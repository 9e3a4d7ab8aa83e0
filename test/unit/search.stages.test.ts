// Unit tests of the model-free retrieval stages: query analysis, fusion, MMR, budget, trace, score parsing, lexical expansion.
import * as assert from 'node:assert/strict';
import { analyzeQuery, extractExactTokens } from '../../src/rag/search/analyze';
import { queryLanguage } from '../../src/rag/text/language';
import { tokenCounter } from '../../src/rag/llm/tokens';
import { contextBudget, fillBudget } from '../../src/rag/search/budget';
import { resolveSettings } from '../../src/rag/search/configs';
import { reciprocalRankFusion, weightedFusion } from '../../src/rag/search/fusion';
import { lexicalVariant } from '../../src/rag/search/lexical';
import { extractJson } from '../../src/rag/llm/chatCall';
import { mmr } from '../../src/rag/search/mmr';
import { parseScores } from '../../src/rag/search/rerank';
import { selectAround } from '../../src/rag/search/augment';
import { Tracer, formatTrace } from '../../src/rag/search/trace';
import { ModelError, type Passage, type SearchHit } from '../../src/rag/types';

function passage(id: string, text = `text of ${id}`): Passage {
  return {
    id, path: `${id}.md`, fileHash: 'h', format: 'md', level: 2, chunkPath: `doc/section-0/${id}`, parentId: null, order: 0,
    headingPath: ['Doc'], title: 'Doc', text, overlap: '', lang: 'en', loc: { startLine: 1, endLine: 2 },
  };
}
function hit(id: string, score: number, vector?: number[]): SearchHit {
  return { passage: passage(id), score, vector: vector ? Float32Array.from(vector) : undefined };
}

describe('search: query analysis', () => {
  it('detects German and English queries, including short keyword and typo queries', () => {
    assert.equal(queryLanguage('Kündigunsschutzklage frist'), 'de');
    assert.equal(queryLanguage('pausen bei 9 stunden arbeit'), 'de');
    assert.equal(queryLanguage('Wie viele Stunden muss ich zwischen zwei Schichten mindestens frei haben?'), 'de');
    assert.equal(queryLanguage('wich resolver version'), 'en');
    assert.equal(queryLanguage('How do I yank a crate from crates.io?'), 'en');
  });

  it('classifies query types (German and English)', () => {
    assert.equal(analyzeQuery('Was ist der Unterschied zwischen Elternzeit und Elterngeld?').type, 'comparative');
    assert.equal(analyzeQuery('What is the difference between dev-dependencies and build-dependencies?').type, 'comparative');
    assert.equal(analyzeQuery('Wie beantrage ich Elternzeit beim Arbeitgeber?').type, 'procedural');
    assert.equal(analyzeQuery('How do I publish a crate?').type, 'procedural');
    assert.equal(analyzeQuery('Welche Ausnahmen gelten für Jugendliche?').type, 'relational');
    assert.equal(analyzeQuery('list all profile settings').type, 'aggregative');
    assert.equal(analyzeQuery('Bis wann muss ich die Kündigungsschutzklage erheben').type, 'temporal');
    assert.equal(analyzeQuery('Wie hoch ist der Mindestlohn?').type, 'factual');
  });

  it('extracts exact tokens: § references, law abbreviations, setting names, env vars, numbers', () => {
    const t = extractExactTokens('Gilt § 7 Abs. 3 BUrlG auch neben § 3 ArbZG? Und was macht `codegen-units` oder CARGO_HOME bei 16 Einheiten?');
    for (const want of ['§ 7 Abs. 3 BUrlG', '§ 3 ArbZG', 'BUrlG', 'ArbZG', 'codegen-units', 'CARGO_HOME', '16']) {
      assert.ok(t.includes(want), `missing ${want} in ${JSON.stringify(t)}`);
    }
    assert.ok(extractExactTokens('set opt-level for the release profile').includes('opt-level'));
  });

  it('derives levels, flow, multi-hop and alpha from the analysis', () => {
    const agg = analyzeQuery('Welche Rechte habe ich alle während der Elternzeit?');
    assert.deepEqual(agg.levels, [0, 1, 2]);
    const fact = analyzeQuery('Wie hoch ist der Mindestlohn?');
    assert.deepEqual(fact.levels, [1, 2]);
    assert.equal(fact.flow, 'chunk');
    assert.equal(analyzeQuery('Give me an overview of the Cargo book').flow, 'summary');
    assert.equal(analyzeQuery('Gib mir einen Überblick über das Mutterschutzgesetz').flow, 'summary');
    assert.equal(analyzeQuery('Gilt § 7 BUrlG auch für § 17 MuSchG?').multiHop, true);
    const exact = analyzeQuery('codegen-units default', { alpha: 0.5, alphaExact: 0.3 });
    assert.equal(exact.alpha, 0.3);
    assert.equal(analyzeQuery('what does cargo do', { alpha: 0.5, alphaExact: 0.3 }).alpha, 0.5);
  });
});

describe('search: fusion', () => {
  it('RRF with k=60 sums 1/(k+rank) over lists and ranks items found by both lists first', () => {
    const fused = reciprocalRankFusion([[hit('a', 9), hit('b', 8), hit('c', 7)], [hit('c', 0.9), hit('d', 0.8)]], 60);
    assert.equal(fused[0].passage.id, 'c');
    assert.ok(Math.abs(fused[0].score - (1 / 63 + 1 / 61)) < 1e-12);
    assert.deepEqual(fused.map((h) => h.passage.id).sort(), ['a', 'b', 'c', 'd']);
    assert.equal(fused.length, 4);
    const a = fused.find((h) => h.passage.id === 'a')!;
    const d = fused.find((h) => h.passage.id === 'd')!;
    assert.ok(a.score > d.score, 'rank 1 of list 1 beats rank 2 of list 2');
  });

  it('weighted fusion follows alpha: 0 = keyword order, 1 = vector order', () => {
    const kw = [hit('a', 10), hit('b', 5), hit('c', 1)];
    const vec = [hit('c', 0.9), hit('b', 0.5), hit('a', 0.1)];
    assert.deepEqual(weightedFusion(kw, vec, 0).map((h) => h.passage.id), ['a', 'b', 'c']);
    assert.deepEqual(weightedFusion(kw, vec, 1).map((h) => h.passage.id), ['c', 'b', 'a']);
  });

  it('a fixed alpha (override or DOCS_RAG_HYBRID_ALPHA) switches to weighted fusion', () => {
    assert.equal(resolveSettings('default').fusion, 'rrf');
    const o = resolveSettings('default', { alpha: 0.7 });
    assert.equal(o.fusion, 'weighted');
    assert.equal(o.alpha, 0.7);
    process.env.DOCS_RAG_HYBRID_ALPHA = '0.25';
    try {
      const e = resolveSettings('default');
      assert.equal(e.fusion, 'weighted');
      assert.equal(e.alpha, 0.25);
      process.env.DOCS_RAG_HYBRID_ALPHA = 'abc';
      assert.throws(() => resolveSettings('default'), /DOCS_RAG_HYBRID_ALPHA/);
    } finally {
      delete process.env.DOCS_RAG_HYBRID_ALPHA;
    }
    assert.throws(() => resolveSettings('nope'), /Use one of: .*bm25/);
  });
});

describe('search: MMR', () => {
  it('demotes a near-duplicate of the top hit below a diverse one', () => {
    const hits = [hit('a', 1.0, [1, 0, 0]), hit('a2', 0.95, [0.999, 0.045, 0]), hit('b', 0.9, [0, 1, 0])];
    assert.deepEqual(mmr(hits, 0.5).map((h) => h.passage.id), ['a', 'b', 'a2']);
    assert.deepEqual(mmr(hits, 1).map((h) => h.passage.id), ['a', 'a2', 'b'], 'lambda 1 keeps relevance order');
  });
});

describe('search: context budget', () => {
  it('sizes the budget from the context window and answer length', () => {
    assert.ok(contextBudget(8192, 'short') > contextBudget(8192, 'long'));
    assert.ok(contextBudget(32768) > contextBudget(8192));
    assert.ok(contextBudget(100) >= 512, 'never below the minimum');
  });

  it('fills greedily by score and skips items that do not fit', () => {
    const fill = fillBudget([{ t: 50 }, { t: 60 }, { t: 30 }], 90, (x) => x.t);
    assert.deepEqual(fill.items.map((x) => x.t), [50, 30]);
    assert.equal(fill.usedTokens, 80);
    assert.equal(fill.dropped, 1);
  });

  it("counts with the model's countTokens when it has one, else estimates; a failing count falls back to the estimate", async () => {
    const text = 'Der Arbeitnehmer hat Anspruch auf Erholungsurlaub.';
    assert.equal(await tokenCounter(undefined)(text), Math.ceil(text.length / 3.6));
    assert.equal(await tokenCounter({ countTokens: async (t: string) => t.split(' ').length })(text), 6);
    assert.equal(
      await tokenCounter({
        countTokens: async () => {
          throw new Error('no tokenizer');
        },
      })(text),
      Math.ceil(text.length / 3.6),
    );
  });

  it('document expansion picks the passages nearest the hits, in document order', () => {
    assert.deepEqual(selectAround(5, [2], 10), [0, 1, 2, 3, 4]);
    assert.deepEqual(selectAround(100, [50], 5), [48, 49, 50, 51, 52]);
    assert.deepEqual(selectAround(100, [0, 99], 4), [0, 1, 98, 99]);
  });
});

describe('search: trace', () => {
  it('records spans with durations, counts and notes, and formats them', async () => {
    const t = new Tracer();
    await t.span('full-text', async () => [1, 2, 3], (r) => ({ hits: r.length }));
    t.note('rerank', 'skipped: no chat model');
    assert.equal(t.spans[0].name, 'full-text');
    assert.equal(t.spans[0].counts?.hits, 3);
    assert.ok(t.spans[0].ms >= 0);
    assert.deepEqual(t.spans[1].notes, ['skipped: no chat model']);
    assert.match(formatTrace(t.spans), /full-text .* hits=3/);
  });
});

describe('search: LLM output parsing', () => {
  it('extracts JSON from fenced, prefixed or bare output', () => {
    assert.deepEqual(extractJson('{"a":1}'), { a: 1 });
    assert.deepEqual(extractJson('Sure! ```json\n{"queries":["x"]}\n``` hope it helps'), { queries: ['x'] });
    assert.deepEqual(extractJson('Here: {"scores": [1, 2]} done'), { scores: [1, 2] });
    assert.equal(extractJson('no json here'), undefined);
  });

  it('parses reranker scores in several shapes and rejects incomplete output', () => {
    assert.deepEqual(parseScores('{"scores": [3, 10, 0]}', 3), [3, 10, 0]);
    assert.deepEqual(parseScores('[7, 2]', 2), [7, 2]);
    assert.deepEqual(parseScores('{"scores":[{"id":2,"score":9},{"id":1,"score":4}]}', 2), [4, 9]);
    assert.deepEqual(parseScores('{"1": 5, "2": 6}', 2), [5, 6]);
    assert.deepEqual(parseScores('[1] 8\n[2] 3', 2), [8, 3]);
    assert.deepEqual(parseScores('{"scores": [15, -2]}', 2), [10, 0], 'clamped to 0..10');
    assert.throws(() => parseScores('{"scores": [3]}', 2), (e: unknown) => e instanceof ModelError && e.kind === 'bad-output');
    assert.throws(() => parseScores('I think passage 1 is best', 2), ModelError);
  });
});

describe('search: model-free expansion', () => {
  it('splits German compounds by the vocabulary and stems the words', () => {
    const counts = new Map([['kündigungsschutz', 5], ['klage', 8], ['frist', 9]]);
    const v = lexicalVariant('Kündigungsschutzklage Frist', 'de', counts)!;
    assert.ok(v.includes('schutz') && v.includes('klag') && v.includes('frist'), v);
  });
});
