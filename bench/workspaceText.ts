// The Markdown of the shared evaluation workspace as one whitespace-collapsed text (files in path order): the source the
// embedder benches cut their passages from.
import * as fs from 'node:fs';
import * as path from 'node:path';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? markdownFiles(p) : e.name.endsWith('.md') ? [p] : [];
  });
}

export function workspaceText(): string {
  return markdownFiles(path.join(SHARED, 'eval/workspace'))
    .sort()
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n')
    .replace(/\s+/g, ' ');
}
