// `npm run gate` — the retrieval quality gate (src/rag/eval/gate.ts) against test/quality/baseline.json; exit 1 when it fails.
// `npm run gate:baseline` — measures the same sets and rewrites the baseline (commit it with the change that moved it).
//   options: --sets dev,scifact   only these sets (the comparison covers only what was measured; with
//                                 --update-baseline only their figures are replaced, the others' are kept)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { compareGate, measureGate, renderGate, type GateBaseline } from '../src/rag/eval/gate';

const ROOT = path.resolve(__dirname, '..');
export const BASELINE_FILE = path.join(ROOT, 'test/quality/baseline.json');

function commitId(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${head} (+ uncommitted changes in src/)` : head;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'update-baseline': { type: 'boolean' }, sets: { type: 'string' } } });
  const shared = path.resolve(process.env.DOCS_RAG_SHARED ?? path.join(ROOT, '../shared'));
  if (!fs.existsSync(path.join(shared, 'eval'))) {
    process.stderr.write(`gate: no evaluation data in ${shared}/eval (set DOCS_RAG_SHARED)\n`);
    return 1;
  }
  const sets = values.sets?.split(',').map((s) => s.trim());
  const measured = await measureGate({ shared, sets, onProgress: (l) => process.stderr.write(`${l}\n`) });
  if (values['update-baseline']) {
    const previous = sets && fs.existsSync(BASELINE_FILE) ? (JSON.parse(fs.readFileSync(BASELINE_FILE, 'utf8')) as GateBaseline) : undefined;
    const baseline: GateBaseline = {
      commit: commitId(),
      measuredAt: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      command: sets ? `npm run gate:baseline -- --sets ${sets.join(',')}` : 'npm run gate:baseline',
      sets: { ...previous?.sets, ...measured.sets },
    };
    fs.mkdirSync(path.dirname(BASELINE_FILE), { recursive: true });
    fs.writeFileSync(BASELINE_FILE, `${JSON.stringify(baseline, null, 2)}\n`);
    process.stdout.write(renderGate(compareGate(measured, baseline), baseline));
    process.stdout.write(`baseline written to ${path.relative(ROOT, BASELINE_FILE)} (${(measured.ms / 1000).toFixed(0)} s)\n`);
    return 0;
  }
  const baseline = JSON.parse(fs.readFileSync(BASELINE_FILE, 'utf8')) as GateBaseline;
  const result = compareGate(measured, baseline);
  process.stdout.write(renderGate(result, baseline));
  process.stdout.write(`(${(measured.ms / 1000).toFixed(0)} s)\n`);
  return result.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
