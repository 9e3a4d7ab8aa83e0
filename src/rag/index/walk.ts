// Lists the files of a folder that the include/exclude globs select (picomatch) and its ignore files leave in, as relative
// '/' paths with size and mtime. The store folder is always excluded, wherever it is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPathFilter, toRel, type PathFilter } from './pathFilter';

export { createPathFilter, toRel, type PathFilter };

export interface WalkEntry {
  /** Relative to the folder, '/' separators. */
  path: string;
  abs: string;
  size: number;
  mtimeMs: number;
  /** Why a selected path cannot be read as a document (a named pipe, a link loop…): it is recorded as skipped, unread. */
  skip?: string;
}

export interface WalkOptions {
  include: string[];
  exclude: string[];
  /** Absolute store folder: never walked. */
  storeDir?: string;
  signal?: AbortSignal;
  /** Index files that a symbolic link points to outside the folder (default false: such links are skipped). */
  followExternalSymlinks?: boolean;
  /** Leave out what the folder's `.gitignore` / `.ignore` files and `.git/info/exclude` ignore. */
  useIgnoreFiles?: boolean;
  /** Filled by the walk: documents and folders the globs select that ignore files left out (folders not entered). */
  counts?: { ignored: number };
  /**
   * Filled by the walk: paths the globs select that are not readable files (named pipes, sockets, devices, links that
   * loop or point to nothing), each with its reason (`skip`). Never opened: reading a named pipe would block.
   */
  special?: WalkEntry[];
}

/** Why `abs` (not a regular file once links are followed) cannot be indexed; null for a file or a folder. */
async function specialReason(abs: string): Promise<{ reason: string; mtimeMs: number } | null> {
  const lst = await fs.promises.lstat(abs).catch(() => null);
  if (!lst) return null;
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!lst.isSymbolicLink()) return null;
    const what = code === 'ELOOP' ? 'a symbolic link that loops (it leads back to itself)' : code === 'ENOENT' ? 'a symbolic link to a file that does not exist' : `a symbolic link that cannot be followed (${code ?? 'error'})`;
    return { reason: `${what}; skipped`, mtimeMs: lst.mtimeMs };
  }
  if (st.isFile() || st.isDirectory()) return null;
  const kind = st.isFIFO() ? 'a named pipe' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'a special file';
  return { reason: `not a regular file (${kind}); skipped`, mtimeMs: st.mtimeMs };
}

/**
 * Where links may point: `inside(abs)` is true when the real path of `abs` (all links resolved) lies in the folder, or
 * always with `followExternalSymlinks`. A link to a file outside the folder would otherwise put that file in the index.
 */
async function linkGuard(root: string, o: WalkOptions): Promise<(abs: string) => Promise<boolean>> {
  if (o.followExternalSymlinks) return async () => true;
  const realRoot = await fs.promises.realpath(root).catch(() => root);
  return async (abs) => {
    const real = await fs.promises.realpath(abs).catch(() => null);
    if (real === null) return false;
    const rel = path.relative(realRoot, real);
    return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
  };
}

/** Folders read between two yields to the event loop. */
const YIELD_EVERY = 64;

/**
 * Walks the whole folder. Symlinked files are followed when they point inside the folder (anywhere with
 * `followExternalSymlinks`); symlinked folders are not (no cycles).
 */
export async function walkFolder(folder: string, o: WalkOptions, startDir?: string): Promise<WalkEntry[]> {
  const root = path.resolve(folder);
  const filter = createPathFilter(root, o);
  const inside = await linkGuard(root, o);
  const out: WalkEntry[] = [];
  // A start folder reached through a link out of the folder (a watcher hint) is not walked.
  if (startDir && !(await inside(path.resolve(root, startDir)))) return out;
  // Folders are read and files stat'ed synchronously (a promise per call costs more than the call on a local disk),
  // yielding to the event loop every YIELD_EVERY folders so a watcher, a cancel or a search request is not held up.
  const start = startDir ? path.resolve(root, startDir) : root;
  const stack: { abs: string; rel: string }[] = [{ abs: start, rel: toRel(root, start) }];
  let read = 0;
  while (stack.length > 0) {
    if (o.signal?.aborted) break;
    if (++read % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    const { abs: dir, rel: dirRel } = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: nothing to index there
    }
    filter.listed(dirRel, entries.map((e) => e.name));
    const files: { abs: string; rel: string }[] = [];
    const links: { abs: string; rel: string }[] = [];
    const odd: string[] = [];
    for (const e of entries) {
      const abs = `${dir}${path.sep}${e.name}`;
      const rel = dirRel === '' ? e.name : `${dirRel}/${e.name}`;
      if (e.isDirectory()) {
        if (filter.entersDir(rel)) stack.push({ abs, rel });
        else if (o.counts && filter.leftOutByIgnoreFiles(rel, true)) o.counts.ignored++;
      } else if (e.isFile() || e.isSymbolicLink()) {
        if (filter.accepts(rel)) (e.isSymbolicLink() ? links : files).push({ abs, rel });
        else if (o.counts && filter.leftOutByIgnoreFiles(rel, false)) o.counts.ignored++;
      } else if (o.special && filter.accepts(rel)) odd.push(abs);
    }
    for (const link of links) {
      // Links that cannot be resolved (loops, missing targets) are reported, not taken for links out of the folder.
      const resolvable = await fs.promises.realpath(link.abs).then(() => true, () => false);
      if (!resolvable) odd.push(link.abs);
      else if (await inside(link.abs)) files.push(link);
    }
    for (const f of files) {
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(f.abs);
      } catch {
        continue; // gone since the listing
      }
      if (st.isFile()) out.push({ path: f.rel, abs: f.abs, size: st.size, mtimeMs: st.mtimeMs });
      else if (!st.isDirectory()) odd.push(f.abs);
    }
    if (o.special) {
      for (const abs of odd) {
        const why = await specialReason(abs);
        if (why) o.special.push({ path: toRel(root, abs), abs, size: 0, mtimeMs: why.mtimeMs, skip: why.reason });
      }
    }
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/**
 * Stats only the given paths (absolute or relative to the folder): the incremental hint of a watcher. A path that is a folder
 * is walked. `scope` holds every hinted relative path: the plan removes records at or under a scope path that no longer exist.
 */
export async function statPaths(folder: string, paths: string[], o: WalkOptions): Promise<{ entries: WalkEntry[]; scope: Set<string> }> {
  const root = path.resolve(folder);
  const filter = createPathFilter(root, o);
  const inside = await linkGuard(root, o);
  const scope = new Set<string>();
  const found = new Map<string, WalkEntry>();
  for (const p of paths) {
    const abs = path.resolve(root, p);
    const rel = toRel(root, abs);
    if (rel === '' || rel === '..' || rel.startsWith('../')) {
      if (rel === '') for (const e of await walkFolder(root, o)) found.set(e.path, e);
      if (rel === '') scope.add('');
      continue;
    }
    scope.add(rel);
    const parts = rel.split('/');
    if (parts.slice(0, -1).some((_, i) => !filter.entersDir(parts.slice(0, i + 1).join('/')))) continue;
    const st = await fs.promises.stat(abs).catch(() => null);
    // A hinted path may itself be a link, or lie under a linked folder: only what really is in the folder counts.
    if (st && !(await inside(abs))) continue;
    if (st?.isFile() && filter.accepts(rel)) found.set(rel, { path: rel, abs, size: st.size, mtimeMs: st.mtimeMs });
    else if (o.special && !st?.isDirectory() && filter.accepts(rel)) {
      const why = await specialReason(abs);
      if (why) o.special.push({ path: rel, abs, size: 0, mtimeMs: why.mtimeMs, skip: why.reason });
    }
    else if (st?.isDirectory() && filter.entersDir(rel)) for (const e of await walkFolder(root, o, abs)) found.set(e.path, e);
  }
  return { entries: [...found.values()].sort((a, b) => (a.path < b.path ? -1 : 1)), scope };
}

/** Is `rel` one of the scope paths or inside one of them? ('' = the whole folder.) */
export function inScope(scope: Set<string>, rel: string): boolean {
  if (scope.has('') || scope.has(rel)) return true;
  let i = rel.lastIndexOf('/');
  while (i > 0) {
    if (scope.has(rel.slice(0, i))) return true;
    i = rel.lastIndexOf('/', i - 1);
  }
  return false;
}
