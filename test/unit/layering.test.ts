// The dependency rule of ARCHITECTURE.md, checked on the import graph of src/ (TypeScript's parser: imports, exports
// from, require() and import() with a literal path):
// - src/rag never imports `vscode` or anything outside src/rag;
// - a stage folder of src/rag imports only stages below it and the neutral modules; the neutral modules import no stage;
//   the composition root (engine.ts, status.ts) is imported by eval/ and, as a type only, by index/;
// - the host folders (cli, mcp, views, indexProcess, searchProcess, childProcess) import no host folder that imports them
//   back (directly or round a cycle).
// The checker runs on the real tree, and on planted graphs to show that it fails on each kind of violation.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');

/** One import: the importing file and the imported module, both relative to src/ ('vscode' etc. for packages). */
interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Stage folders of src/rag by level: a stage imports only lower levels. */
const STAGE_LEVEL: Record<string, number> = { ingest: 1, chunk: 1, embed: 1, enrich: 1, links: 1, store: 2, index: 3, search: 3, answer: 4, eval: 5 };
const NEUTRAL = new Set(['text', 'llm', 'types.ts', 'formats.ts', 'config.ts']);
const COMPOSITION = new Set(['engine.ts', 'status.ts']);
const HOSTS = new Set(['cli', 'mcp', 'views', 'indexProcess', 'searchProcess', 'childProcess']);

type Unit = { kind: 'stage'; name: string; level: number } | { kind: 'neutral' | 'composition'; name: string } | { kind: 'host' | 'other'; name: string };

function unitOf(file: string): Unit | undefined {
  const parts = file.split('/');
  if (parts[0] === 'rag') {
    const name = parts[1];
    if (name in STAGE_LEVEL) return { kind: 'stage', name, level: STAGE_LEVEL[name] };
    if (NEUTRAL.has(name)) return { kind: 'neutral', name };
    if (COMPOSITION.has(name)) return { kind: 'composition', name };
    throw new Error(`src/rag/${name} has no place in the dependency rule (test/unit/layering.test.ts)`);
  }
  if (parts.length > 1 && HOSTS.has(parts[0])) return { kind: 'host', name: parts[0] };
  return parts.length > 1 || file.endsWith('.ts') ? { kind: 'other', name: parts[0] } : undefined;
}

/** The rule's violations in an import graph (files relative to src/, '/' separators). */
export function layeringViolations(edges: Edge[]): string[] {
  const out: string[] = [];
  const hostEdges = new Map<string, Set<string>>();
  for (const e of edges) {
    const from = unitOf(e.from);
    if (!from) continue;
    const inRag = e.from.startsWith('rag/');
    const internal = !e.to.startsWith('pkg:');
    if (inRag && !internal && e.to === 'pkg:vscode') out.push(`${e.from} imports vscode`);
    if (!internal) continue;
    const to = unitOf(e.to);
    if (!to || to.name === from.name) continue;
    if (inRag && !e.to.startsWith('rag/')) {
      out.push(`${e.from} imports ${e.to}, outside src/rag`);
      continue;
    }
    if (from.kind === 'host' && to.kind === 'host') {
      if (!hostEdges.has(from.name)) hostEdges.set(from.name, new Set());
      hostEdges.get(from.name)!.add(to.name);
    }
    if (!inRag) continue;
    if (from.kind === 'neutral' && to.kind !== 'neutral') out.push(`${e.from} (neutral) imports ${e.to}`);
    if (from.kind === 'stage' && to.kind === 'stage' && to.level >= from.level) out.push(`${e.from} (stage ${from.name}) imports ${e.to}, not below it`);
    if (from.kind === 'stage' && to.kind === 'composition') {
      const allowed = from.name === 'eval' || (from.name === 'index' && to.name === 'engine.ts' && e.typeOnly);
      if (!allowed) out.push(`${e.from} (stage ${from.name}) imports the composition root ${e.to}`);
    }
  }
  // Host folders: no cycle (two folders importing each other, or round more).
  const reaches = (a: string, b: string, seen = new Set<string>()): boolean => {
    for (const n of hostEdges.get(a) ?? []) {
      if (n === b) return true;
      if (!seen.has(n)) {
        seen.add(n);
        if (reaches(n, b, seen)) return true;
      }
    }
    return false;
  };
  for (const [a, targets] of hostEdges) {
    for (const b of targets) if (reaches(b, a)) out.push(`host folders ${[a, b].sort().join(' and ')} import each other`);
  }
  return [...new Set(out)];
}

/** Resolves a relative module path of `from` to a file relative to src/ (a folder means its index.ts). */
function resolve(from: string, spec: string): string {
  const abs = path.resolve(path.dirname(path.join(SRC, from)), spec);
  for (const candidate of [abs, `${abs}.ts`, path.join(abs, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return path.relative(SRC, candidate).split(path.sep).join('/');
  }
  return path.relative(SRC, abs).split(path.sep).join('/');
}

/** The imports of one file's text (import/export declarations, require(), import()). */
export function importsOf(file: string, text: string): Edge[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    edges.push({ from: file, to: spec.startsWith('.') ? resolve(file, spec) : `pkg:${spec}`, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, !!node.importClause?.isTypeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node.moduleReference.expression.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0].text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

function sourceGraph(): Edge[] {
  const edges: Edge[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) {
        const rel = path.relative(SRC, p).split(path.sep).join('/');
        edges.push(...importsOf(rel, fs.readFileSync(p, 'utf8')));
      }
    }
  };
  walk(SRC);
  return edges;
}

describe('layering: the dependency rule on the import graph of src/', () => {
  it('src/ keeps the rule', () => {
    const edges = sourceGraph();
    assert.ok(edges.length > 500, `the graph was read (${edges.length} imports)`);
    assert.deepEqual(layeringViolations(edges), []);
  });

  it('reads every kind of import, type-only ones marked', () => {
    const edges = importsOf(
      'rag/index/x.ts',
      [
        "import type { Engine } from '../engine';",
        "import { a } from '../search/retriever';",
        "export { b } from '../store';",
        "const c = require('../answer/answer');",
        "const d = () => import('vscode');",
        "type E = import('../eval/gate').GateResult;",
      ].join('\n'),
    );
    assert.deepEqual(
      edges.map((e) => [e.to, e.typeOnly]),
      [
        ['rag/engine.ts', true],
        ['rag/search/retriever.ts', false],
        ['rag/store/index.ts', false],
        ['rag/answer/answer.ts', false],
        ['pkg:vscode', false],
        ['rag/eval/gate.ts', true],
      ],
    );
  });

  it('fails on a planted upward import, a stage of the same level, and a neutral module importing a stage', () => {
    const planted = (from: string, text: string) => layeringViolations([...sourceGraph(), ...importsOf(from, text)]);
    assert.deepEqual(planted('rag/chunk/planted.ts', "import { createRetriever } from '../search';"), ['rag/chunk/planted.ts (stage chunk) imports rag/search/index.ts, not below it']);
    assert.deepEqual(planted('rag/chunk/planted.ts', "import { embedBuiltin } from '../embed/builtin';"), ['rag/chunk/planted.ts (stage chunk) imports rag/embed/builtin.ts, not below it']);
    assert.deepEqual(planted('rag/answer/planted.ts', "import { measureGate } from '../eval/gate';"), ['rag/answer/planted.ts (stage answer) imports rag/eval/gate.ts, not below it']);
    assert.deepEqual(planted('rag/text/planted.ts', "import { openStore } from '../store';"), ['rag/text/planted.ts (neutral) imports rag/store/index.ts']);
    assert.deepEqual(planted('rag/search/planted.ts', "import { openEngine } from '../engine';"), ['rag/search/planted.ts (stage search) imports the composition root rag/engine.ts']);
    assert.deepEqual(planted('rag/index/planted.ts', "import { openEngine } from '../engine';"), ['rag/index/planted.ts (stage index) imports the composition root rag/engine.ts']);
    assert.deepEqual(planted('rag/index/planted.ts', "import type { Engine } from '../engine';"), []);
  });

  it('fails when src/rag imports vscode or a host folder', () => {
    const planted = (from: string, text: string) => layeringViolations([...sourceGraph(), ...importsOf(from, text)]);
    assert.deepEqual(planted('rag/answer/planted.ts', "import * as vscode from 'vscode';"), ['rag/answer/planted.ts imports vscode']);
    assert.deepEqual(planted('rag/search/planted.ts', "import { locationLabel } from '../../views/locations';"), ['rag/search/planted.ts imports views/locations.ts, outside src/rag']);
  });

  it('fails when two host folders import each other, directly or round a cycle', () => {
    const planted = (from: string, text: string) => layeringViolations([...sourceGraph(), ...importsOf(from, text)]);
    // Before status.ts moved into the engine, mcp/tools.ts imported cli/status.ts while cli/mcp.ts starts the server.
    assert.deepEqual(planted('mcp/planted.ts', "import { run } from '../cli/status';"), ['host folders cli and mcp import each other']);
    // indexProcess ← searchProcess ← views: a planted indexProcess → views closes a cycle.
    assert.ok(planted('indexProcess/planted.ts', "import { emptyIndexMessage } from '../views/emptyIndex';").some((v) => /host folders .* import each other/.test(v)));
  });
});
