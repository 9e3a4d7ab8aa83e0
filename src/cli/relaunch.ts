// `docs-rag index` on Linux runs in a child of the command with the indexing malloc settings (INDEXING_MALLOC_ENV:
// MALLOC_ARENA_MAX=2, 128 KB mmap/trim thresholds) and node flags (INDEXING_NODE_FLAGS: small V8 semi-spaces). glibc otherwise gives each allocating thread its own arena (up to
// 8 per core) and keeps freed memory in them; with LanceDB's threads and the parser workers that was the largest part of
// a big run's peak resident memory. The variables only take
// effect at process start, hence the child. The child runs in a process group of its own, so a signal reaches it once,
// from the launcher: a terminal's Ctrl+C (sent to the launcher's group) and a SIGINT sent to the command's pid alike,
// SIGTERM/SIGHUP and a resized terminal's SIGWINCH; Ctrl+Z stops both and `fg` continues both. The launcher passes the
// exit code on. The child exits when the launcher goes away (IPC channel
// closed), so killing the command stops the run.
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { INDEXING_MALLOC_ENV, withIndexingFlags } from '../indexProcess/protocol';
import { lanceTempDir } from '../rag/index/lanceTemp';

const MARK = 'DOCS_RAG_RELAUNCHED';

/** Runs the command again with the indexing malloc settings; undefined when it runs here (not Linux, MALLOC_ARENA_MAX set). */
export function relaunchWithFewArenas(): Promise<number> | undefined {
  if (process.env[MARK]) {
    // The child: stop with the launcher.
    process.on('disconnect', () => process.exit(130));
    process.channel?.unref();
    return undefined;
  }
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX) return undefined;
  return new Promise((resolve) => {
    // LanceDB's spill files go to a temp directory of the child's own, deleted when it exits (lanceTemp.ts).
    const temp = lanceTempDir({ ...INDEXING_MALLOC_ENV, ...process.env, [MARK]: '1' });
    const child = spawn(process.execPath, [...withIndexingFlags(process.execArgv), ...process.argv.slice(1)], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: temp.env,
      // Its own process group: a terminal's Ctrl+C reaches only this launcher, which forwards it (once, as for a SIGINT
      // sent to this pid alone; in the same group the child got Ctrl+C twice or a lone SIGINT not at all).
      detached: true,
    });
    child.once('exit', () => temp.dispose());
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGWINCH'] as const) process.on(s, () => child.kill(s));
    // Job control: the terminal's Ctrl+Z (SIGTSTP) reaches only this launcher. The child stops first, then the launcher
    // itself, as the shell expects; `fg` / `bg` continue the launcher (SIGCONT), which continues the child.
    // The child's whole group (it leads it): the vector-index step it may have started stops and continues with it.
    const group = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    process.on('SIGTSTP', () => {
      group('SIGSTOP');
      process.kill(process.pid, 'SIGSTOP');
    });
    process.on('SIGCONT', () => group('SIGCONT'));
    child.on('error', (err) => {
      temp.dispose();
      process.stderr.write(`docs-rag: could not start the indexing process (${err.message})\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0)));
  });
}
