// File names are untrusted: a name carrying terminal escape sequences (OSC 52 sets the clipboard, CSI 2J clears the
// screen) is printed by `docs-rag search`, `ask`, `index` and `status` without any control character.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { printableName, printableText } from '../../src/rag/text/printable';

const ROOT = path.resolve(__dirname, '../..');

function cli(args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

// Every C0 control except newline, DEL, the C1 range and the bidi overrides.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminal output: control characters in file names and text never reach the terminal', function () {
  this.timeout(600_000);
  let folder: string;

  before(function () {
    if (process.platform === 'win32') this.skip(); // such names cannot exist there
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-terminal-'));
    fs.writeFileSync(path.join(folder, 'clip\u001b]52;c;ZXZpbA==\u0007\u202eboard.md'), '# Quokka \u001b[31mred\u001b[0m\n\nThe quokka hops across Rottnest Island at dawn.\n');
    fs.writeFileSync(path.join(folder, 'broken\u001b[2J\u009b1m.pdf'), 'not a pdf at all');
    const r = cli(['index', folder]);
    assert.equal(r.code, 0, r.out);
    assert.doesNotMatch(r.out, CONTROL, JSON.stringify(r.out));
    assert.match(r.out, /broken\uFFFD\[2J\uFFFD1m\.pdf/);
  });
  after(() => folder && fs.rmSync(folder, { recursive: true, force: true }));

  it('search, ask and status print the names with U+FFFD in place of each control character', () => {
    for (const args of [['search', 'quokka Rottnest', '--folder', folder], ['ask', 'Where does the quokka hop?', '--folder', folder], ['status', '--folder', folder]]) {
      const r = cli(args);
      assert.equal(r.code, 0, r.out);
      assert.doesNotMatch(r.out, CONTROL, `${args[0]}: ${JSON.stringify(r.out)}`);
      assert.match(r.out, args[0] === 'status' ? /broken\uFFFD\[2J\uFFFD1m\.pdf/ : /clip\uFFFD\]52;c;ZXZpbA==\uFFFD\uFFFDboard\.md/, `${args[0]}: ${r.out}`);
    }
  });

  it('printableName keeps one line; printableText keeps tabs and newlines', () => {
    assert.equal(printableName('a\nb\tc\u001b[2Jd'), 'a\uFFFDb\uFFFDc\uFFFD[2Jd');
    assert.equal(printableText('a\nb\tc\u001b[2Jd\u0085e'), 'a\nb\tc\uFFFD[2Jd\uFFFDe');
  });
});
