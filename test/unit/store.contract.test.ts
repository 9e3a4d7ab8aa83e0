// The store contract (src/rag/store/types.ts, read with TypeScript's parser): `IndexStore` has no optional member, so no
// caller needs a fallback for a store that lacks one. The check runs on the real file and on a planted interface.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const TYPES = path.resolve(__dirname, '../../src/rag/store/types.ts');

/** The optional members (`name?:` / `name?()`) of an interface declared in `text`; throws when it is not declared. */
function optionalMembers(text: string, name: string): string[] {
  const sf = ts.createSourceFile('types.ts', text, ts.ScriptTarget.Latest, true);
  const decl = sf.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!decl) throw new Error(`interface ${name} not found`);
  return decl.members.filter((m) => m.questionToken !== undefined).map((m) => m.name?.getText(sf) ?? '?');
}

describe('store contract: IndexStore', () => {
  it('has no optional members', () => {
    assert.deepEqual(optionalMembers(fs.readFileSync(TYPES, 'utf8'), 'IndexStore'), []);
  });

  it('the check finds an optional method and an optional property', () => {
    const planted = 'export interface IndexStore {\n  dir: string;\n  linksOf?(ids: string[]): Promise<void>;\n  note?: string;\n  meta(): null;\n}\n';
    assert.deepEqual(optionalMembers(planted, 'IndexStore'), ['linksOf', 'note']);
  });
});
