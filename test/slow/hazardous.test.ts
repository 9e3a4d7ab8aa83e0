// Slow test (not in the default spec glob): run with `npx mocha --no-config -r tsx/cjs --extension ts test/slow/hazardous.test.ts`.
// The two hazardous PDFs kept pdf.js 4.10 busy for 90–170 s of synchronous CPU. Through ParserPool with a 5 s deadline each
// must settle within the deadline plus slack — either with a 'timeout' LoadError (worker killed) or, when the bundled
// pdf.js copes with the file, with the result the MANIFEST allows — while a file parsed concurrently in the same pool
// still succeeds. pdf.js 5.6 (bundled in unpdf 1.7) copes with both files in about a second, so a generated PDF whose
// content stream needs seconds of synchronous pdf.js CPU (textBombPdf) is added: it must end with a 'timeout'. How many
// seconds depends on the machine (a quiet fast one parsed it in under 5 s), so its deadline comes from a calibration run:
// the same file parsed to the end in the same pool, alone, and the deadline set to a tenth of that time. The run under test
// is never faster than the calibration (the file competes with three other parses), so the deadline always strikes.
import { strict as assert } from 'assert';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { ParserPool } from '../../src/rag/ingest';
import { LoadError, type ParsedDocument } from '../../src/rag/types';
import { textBombPdf } from './textBombPdf';
import { REALDOCS, needsShared } from '../helpers/shared';

const DEADLINE_MS = 5_000;
const SLACK_MS = 2_000;
/** A deadline of 1/CALIBRATION_SHARE of the text bomb's measured parse time; at least MIN_BOMB_DEADLINE_MS. */
const CALIBRATION_SHARE = 10;
const MIN_BOMB_DEADLINE_MS = 100;

/** The pool's timeout message for a deadline (same rounding as ParserPool). */
function timeoutMessage(ms: number): string {
  return `parsing took longer than ${Math.round((ms / 1000) * 10) / 10} s; skipped`;
}

interface Settled {
  doc?: ParsedDocument;
  error?: unknown;
  ms: number;
}

async function timed(p: Promise<ParsedDocument>): Promise<Settled> {
  const t0 = Date.now();
  try {
    return { doc: await p, ms: Date.now() - t0 };
  } catch (error) {
    return { error, ms: Date.now() - t0 };
  }
}

describe('hazardous PDFs through ParserPool (slow)', function () {
  needsShared('eval/realdocs');
  this.timeout(300_000);

  it('hazardous files settle within the deadline, a PDF needing 10x its deadline of pdf.js CPU times out, and a concurrent parse succeeds', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'docs-rag-hazard-'));
    const textBomb = path.join(dir, 'text-bomb.pdf');
    writeFileSync(textBomb, textBombPdf(6_000_000));
    const pool = new ParserPool(4);
    try {
      // Start the workers first so start-up time is not counted against the deadline.
      await Promise.all([1, 2, 3, 4].map(() => pool.parse(path.join(REALDOCS, 'md/AGG.md'), { timeoutMs: 30_000, maxFileSizeMB: 50 })));
      // Calibration: how long this machine needs for the whole text bomb (alone in the warm pool).
      const calibration = await timed(pool.parse(textBomb, { timeoutMs: 120_000, maxFileSizeMB: 50 }));
      const calibrated = calibration.error instanceof LoadError && calibration.error.kind === 'timeout' ? 120_000 : calibration.ms;
      const bombDeadline = Math.max(MIN_BOMB_DEADLINE_MS, Math.floor(calibrated / CALIBRATION_SHARE / 100) * 100);
      const options = { timeoutMs: DEADLINE_MS, maxFileSizeMB: 50 };
      const [stuck, bomb, broken, other] = await Promise.all([
        timed(pool.parse(textBomb, { timeoutMs: bombDeadline, maxFileSizeMB: 50 })),
        timed(pool.parse(path.join(REALDOCS, 'hazardous/bomb_giant.pdf'), options)),
        timed(pool.parse(path.join(REALDOCS, 'hazardous/bug1980958.pdf'), options)),
        timed(pool.parse(path.join(REALDOCS, 'pdf/TAMReview.pdf'), { timeoutMs: 30_000, maxFileSizeMB: 50 })),
      ]);

      assert.ok(stuck.error instanceof LoadError, `text bomb: expected a timeout, got ${stuck.doc ? 'a document' : String(stuck.error)}`);
      assert.equal(stuck.error.kind, 'timeout');
      assert.equal(stuck.error.message, timeoutMessage(bombDeadline));
      assert.ok(stuck.ms <= bombDeadline + SLACK_MS, `text bomb took ${stuck.ms} ms`);

      for (const [name, r] of [['bomb_giant.pdf', bomb], ['bug1980958.pdf', broken]] as const) {
        assert.ok(r.ms <= DEADLINE_MS + SLACK_MS, `${name} took ${r.ms} ms`);
        if (r.error !== undefined) {
          assert.ok(r.error instanceof LoadError, `${name}: ${String(r.error)}`);
          if (name === 'bomb_giant.pdf') assert.equal(r.error.kind, 'timeout', r.error.message);
          else assert.ok(['timeout', 'no-text', 'corrupt'].includes(r.error.kind), r.error.message);
          if (r.error.kind === 'timeout') assert.equal(r.error.message, 'parsing took longer than 5 s; skipped');
        }
      }
      // MANIFEST: the bomb gives either a timeout or its short text; the broken file a per-file error or an empty result.
      if (bomb.doc) assert.ok(bomb.doc.blocks.some((b) => b.text.includes('GIANT JBIG2 BOMB')));
      console.log(`      text bomb: parsed in ${calibration.ms} ms alone, timeout at ${bombDeadline} ms in ${stuck.ms} ms; bomb_giant: ${bomb.doc ? 'text' : (bomb.error as LoadError).kind} in ${bomb.ms} ms; bug1980958: ${broken.doc ? 'text' : (broken.error as LoadError).kind} in ${broken.ms} ms`);

      assert.ok(other.doc, `concurrent parse failed: ${String(other.error)}`);
      assert.ok(other.doc.blocks.some((b) => b.text.includes('Technology Acceptance Model')));
      // The pool is still whole afterwards.
      const again = await pool.parse(path.join(REALDOCS, 'pdf/ArbZG.pdf'), { timeoutMs: 30_000, maxFileSizeMB: 50 });
      assert.ok(again.blocks.length > 100);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
