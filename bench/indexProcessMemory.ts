// Peak memory of the extension's indexing process (dist/indexWorker.js) for one folder: forks it the way
// src/views/indexProcess.ts does (IPC, INDEXING_MALLOC_ENV), asks for one run, and reads the child's peak resident memory
// (VmHWM) before it shuts down. Usage: node --import tsx bench/indexProcessMemory.ts <folder> <storeDir>
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INDEXING_MALLOC_ENV, type FromChild, type ToChild } from '../src/indexProcess/protocol';

async function main(): Promise<void> {
  const [folder, storeDir] = process.argv.slice(2).map((p) => path.resolve(p));
  if (!folder || !storeDir) throw new Error('usage: bench/indexProcessMemory.ts <folder> <storeDir>');
  const child = fork(path.resolve(__dirname, '../dist/indexWorker.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...INDEXING_MALLOC_ENV, ...process.env },
    execArgv: [],
  });
  const started = Date.now();
  const result = await new Promise<Extract<FromChild, { type: 'result' }>['result']>((resolve, reject) => {
    child.on('message', (m: FromChild) => {
      if (m.type === 'ready') {
        child.send({ type: 'configure', folders: [{ key: 'bench', name: path.basename(folder), folder, storeDir, config: {} }] } satisfies ToChild);
        child.send({ type: 'run', id: 1, key: 'bench' } satisfies ToChild);
      } else if (m.type === 'result') resolve(m.result);
      else if (m.type === 'error') reject(new Error(m.message));
    });
    child.once('exit', (code) => reject(new Error(`the indexing process exited (${code})`)));
  });
  const wallMs = Date.now() - started;
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const peakMB = Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  child.send({ type: 'shutdown' } satisfies ToChild);
  await new Promise((r) => child.once('exit', r));
  console.log(JSON.stringify({ folder, files: result.files, passages: result.chunks, errors: result.errors.length, 'wall ms': wallMs, 'indexing process peak RSS MB': peakMB }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
