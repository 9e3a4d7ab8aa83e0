// `docs-rag --help` and `docs-rag <command> --help|-h`: the real CLI in a child process answers with its usage on stdout
// and exit 0; usage errors still go to stderr with exit 2.
import * as assert from 'node:assert/strict';
import { version } from '../../package.json';
import { runCliSource } from '../helpers/run';

const COMMANDS = ['index', 'search', 'status', 'ask', 'eval'];

const cli = runCliSource;

describe('docs-rag --help (CLI end to end)', function () {
  this.timeout(120_000);

  it('docs-rag --help, -h and help print every command on stdout and exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '', args.join(' '));
      assert.match(r.stdout, /^Usage:\n/);
      for (const c of COMMANDS) assert.ok(r.stdout.includes(`docs-rag ${c} `), `${args.join(' ')} lists ${c}`);
      // The overview holds the synopses only: every line a command's first line or a continuation of its flags.
      for (const line of r.stdout.split('\n').slice(1, -1).filter((l) => !l.startsWith('Run docs-rag'))) {
        assert.match(line, /^ {2}(docs-rag \w+ | {15}\[)/, `${args.join(' ')}: a stray line in the overview: ${line}`);
      }
    }
  });

  for (const c of COMMANDS) {
    it(`docs-rag ${c} --help and -h print the usage of ${c} on stdout and exit 0`, async () => {
      for (const flag of ['--help', '-h']) {
        // Also after other arguments, even when the command would need more (no folder, no question).
        for (const args of [[c, flag], [c, 'something', flag]]) {
          const r = await cli(args);
          assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
          assert.equal(r.stderr, '', args.join(' '));
          assert.match(r.stdout, new RegExp(`^Usage:\\n  docs-rag ${c} `), args.join(' '));
          for (const other of COMMANDS.filter((o) => o !== c)) assert.ok(!r.stdout.includes(`docs-rag ${other} `), `${args.join(' ')}: only ${c}`);
        }
      }
    });
  }

  it('docs-rag --version, -V and version print the package version on stdout and exit 0', async () => {
    for (const args of [['--version'], ['-V'], ['version']]) {
      const r = await cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, `docs-rag ${version}\n`);
    }
  });

  it('help <command> prints that command; usage errors stay on stderr with exit 2', async () => {
    const h = await cli(['help', 'ask']);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /^Usage:\n  docs-rag ask .*--num-ctx N/s);
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /Usage:/);
    const unknownFlag = await cli(['index', '--halp']);
    assert.equal(unknownFlag.code, 2);
    assert.match(unknownFlag.stderr, /Unknown option '--halp'/);
    // After `--` a "-h" is an argument, not a request for help.
    const afterTerminator = await cli(['status', '--', '-h']);
    assert.notEqual(afterTerminator.stdout.startsWith('Usage:'), true);
  });
});
