// Generation evaluation: key facts tolerant of number formats, citation accuracy against evidence (E's matcher), and
// the LLM judge — over a real index of the fixture documents, answered through the test server.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateAnswers, factCovered, scoreAnswer } from '../../src/rag/eval/evaluateAnswers';
import { OllamaChatModel } from '../../src/rag/llm/ollamaChat';
import type { AnswerResult } from '../../src/rag/answer/types';
import { detectLanguage } from '../../src/rag/text/language';
import { openEngine, type Engine } from '../../src/rag/engine';
import type { WorkspaceQuery } from '../../src/rag/eval/datasets';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';
import { writeFixture } from './answerFixtures';
import { testModel } from './answerTestModel';

describe('answer: evaluation', function () {
  this.timeout(120_000);

  it('key facts match across number formats and wording', () => {
    assert.ok(factCovered('1 800 Euro', 'Die Vergütung beträgt 1.800 € brutto.', 'de'));
    assert.ok(factCovered('8,50 Euro', 'Der Mindestlohn liegt bei 8,50 € je Zeitstunde.', 'de'));
    assert.ok(factCovered('opt-level = 3', 'The release profile uses opt-level 3.', 'en'));
    assert.ok(factCovered('elf Stunden', 'Die Ruhezeit beträgt mindestens 11 Stunden.', 'de'));
    assert.ok(factCovered('ersten drei Monaten', 'in den ersten drei Monaten des Folgejahres', 'de'));
    assert.ok(!factCovered('1.900 Euro', 'Die Vergütung beträgt 1.800 € brutto.', 'de'));
    assert.ok(!factCovered('drei Wochen', 'Die Klage ist binnen sechs Monaten zu erheben.', 'de'));
  });

  const baseQuery: WorkspaceQuery = {
    id: 'x',
    query: 'q',
    lang: 'de',
    category: 'factual',
    style: 'exact',
    relevant: [{ path: 'recht/urlaub.md', startLine: 5, endLine: 6, grade: 2 }],
    keyFacts: ['24 Werktage', 'Kalenderjahr'],
  };
  const passage = (path: string, startLine: number, endLine: number, text: string) => ({
    n: 0,
    passageId: path + startLine,
    path,
    title: '',
    headingPath: [],
    loc: { startLine, endLine },
    text,
  });

  it('citation accuracy counts citations on evidence that also support their sentence', () => {
    const r = {
      question: 'q',
      answer: 'Es gibt 24 Werktage [1]. Im Kalenderjahr 30 Tage [2].',
      mode: 'generative',
      citations: [
        { ...passage('recht/urlaub.md', 5, 6, 'Der Urlaub beträgt jährlich mindestens 24 Werktage.'), n: 1 },
        { ...passage('cargo/profiles.md', 5, 6, 'opt-level 3'), n: 2 },
      ],
      checks: [
        { sentence: 'Es gibt 24 Werktage.', citations: [1], supported: true, termCoverage: 1, missingNumbers: [] },
        { sentence: 'Im Kalenderjahr 30 Tage.', citations: [2], supported: false, termCoverage: 0, missingNumbers: ['30'] },
      ],
      unsupported: ['Im Kalenderjahr 30 Tage.'],
      removedCitations: [],
    } as unknown as AnswerResult;
    const s = scoreAnswer(baseQuery, r);
    assert.equal(s.keyFactCoverage, 1);
    assert.equal(s.citations, 2);
    assert.equal(s.citationsOnEvidence, 1);
    assert.equal(s.citationsCorrect, 1);
    assert.equal(s.citationAccuracy, 0.5);
    // The same citation on evidence but with its sentence unsupported does not count.
    const unsupported = { ...r, checks: r.checks.map((c) => ({ ...c, supported: false })) } as AnswerResult;
    assert.equal(scoreAnswer(baseQuery, unsupported).citationsCorrect, 0);
  });

  describe('over a real index', () => {
    let dir: string;
    let engine: Engine;
    let server: FakeOllama;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-eval-answers-'));
      writeFixture(dir);
      engine = await openEngine({ folder: dir });
      await indexFolder(engine);
      server = await startFakeOllama({
        chat: (req) => (/You check whether an answer is supported/.test(req.messages[0].content) ? '{"grounded": 0.75, "unsupported": []}' : testModel(req)),
      });
    });
    after(async () => {
      await server.close();
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('answers every question, scores key facts, citation accuracy and the judge, per language', async () => {
      const urlaub = fs.readFileSync(path.join(dir, 'recht/urlaub.md'), 'utf8').split('\n');
      const line = (needle: string) => urlaub.findIndex((l) => l.includes(needle)) + 1;
      const queries: WorkspaceQuery[] = [
        { ...baseQuery, id: 'de-1', query: 'Wie viele Werktage Urlaub gibt es jährlich mindestens?', relevant: [{ path: 'recht/urlaub.md', startLine: line('24 Werktage'), endLine: line('24 Werktage'), grade: 2 }], keyFacts: ['24 Werktage'] },
        { ...baseQuery, id: 'en-1', lang: 'en', query: 'Which opt-level is set and are debug assertions turned off?', relevant: [{ path: 'cargo/profiles.md', startLine: 6, endLine: 6, grade: 2 }], keyFacts: ['opt-level = 3', 'debug assertions off'] },
      ];
      const model = new OllamaChatModel({ model: 'llama3.2', host: server.url });
      const progress: number[] = [];
      const report = await evaluateAnswers(queries, {
        retriever: createRetriever(engine, { detect: detectLanguage }),
        chatModel: model,
        judge: model,
        embedder: engine.embedder,
        onProgress: (d) => progress.push(d),
      });
      assert.deepEqual(progress, [1, 2]);
      assert.equal(report.perQuery.length, 2);
      for (const s of report.perQuery) {
        assert.equal(s.error, undefined);
        assert.equal(s.keyFactCoverage, 1, `${s.id} missing ${s.missingFacts.join(', ')}`);
        assert.equal(s.citationAccuracy, 1, s.id);
        assert.equal(s.groundedness, 0.75);
      }
      assert.equal(report.summary.keyFactCoverage, 1);
      assert.equal(report.summary.citationAccuracy, 1);
      assert.deepEqual(Object.keys(report.summary.byLang), ['de', 'en']);

      // Extractive answers (no model) are scored too; no judge without a generated answer.
      const ex = await evaluateAnswers(queries.slice(0, 1), { retriever: createRetriever(engine, { detect: detectLanguage }) });
      assert.equal(ex.perQuery[0].mode, 'extractive');
      assert.equal(ex.perQuery[0].groundedness, null);
      assert.equal(ex.perQuery[0].keyFactCoverage, 1);
    });
  });
});
