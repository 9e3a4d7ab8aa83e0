// The one answer to "does this path belong to the index?", shared by the walker (index/walk.ts) and the file watchers
// (src/views/watcher.ts, src/mcp/watch.ts), so all select the same files: include globs match case-insensitively
// (Report.PDF is a PDF), exclude globs, the store folder and the folder's ignore files (index/ignoreFiles.ts) are honoured
// the same way. Also normalises relative paths that come from outside (URIs, hints) and says whether they stay inside
// the folder.
import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { formatOf } from '../ingest/formats';
import { createIgnoreRules, ignoreFileMatters, isIgnoreFile } from './ignoreFiles';

export interface PathFilterOptions {
  include: string[];
  exclude: string[];
  /** Absolute store folder: never part of the index. */
  storeDir?: string;
  /** Honour `.gitignore` / `.ignore` files and `.git/info/exclude` (read once per filter: make a new one when they change). */
  useIgnoreFiles?: boolean;
}

export interface PathFilter {
  /** Does the file (relative path) belong to the index? */
  accepts(rel: string): boolean;
  /** Can a folder (relative path) hold indexed files? False for excluded folders. */
  entersDir(rel: string): boolean;
  /** A walk's listing of a folder (relative path, entry names): saves looking for ignore files it does not hold. */
  listed(dir: string, names: string[]): void;
  /** Is a file or folder that the globs select left out by an ignore file only? (To say so: the walker counts them.) */
  leftOutByIgnoreFiles(rel: string, isDir: boolean): boolean;
  /**
   * Is this a read ignore file whose change can change the selection (not one in a folder the index never enters)?
   * Then the filter is stale: the watchers make a new one and walk the whole folder.
   */
  changesRules(rel: string): boolean;
  /**
   * Absolute paths of the ignore files above the folder, up to its repository's root, whose rules apply too (present
   * or not; empty without ignore files or outside a repository): the watchers watch them, a change makes a new filter.
   */
  readonly parentIgnoreFiles: string[];
}

export function createPathFilter(folder: string, o: PathFilterOptions): PathFilter {
  const include = picomatch(o.include, { nocase: true, dot: false });
  const exclude = picomatch(o.exclude.length > 0 ? o.exclude : ['\0never'], { dot: true });
  const storeRel = o.storeDir ? toRel(folder, path.resolve(o.storeDir)) : null;
  const inStore = (rel: string) =>
    storeRel !== null && storeRel !== '' && !storeRel.startsWith('../') && (rel === storeRel || rel.startsWith(`${storeRel}/`));
  const rules = o.useIgnoreFiles ? createIgnoreRules(folder) : null;
  const selected = (rel: string, isDir: boolean) => !inStore(rel) && (isDir ? !exclude(rel) && !exclude(`${rel}/x`) : include(rel) && !exclude(rel));
  const entersDir = (rel: string) => selected(rel, true) && !rules?.ignored(rel, true);
  return {
    accepts: (rel) => selected(rel, false) && !rules?.ignored(rel, false),
    entersDir,
    listed: (dir, names) => rules?.listed(dir, names),
    leftOutByIgnoreFiles: (rel, isDir) => !!rules && selected(rel, isDir) && rules.ignored(rel, isDir),
    changesRules: (rel) => !!rules && isIgnoreFile(rel) && ignoreFileMatters(rel, entersDir),
    parentIgnoreFiles: rules?.parentFiles ?? [],
  };
}

export function toRel(folder: string, abs: string): string {
  return path.relative(folder, abs).split(path.sep).join('/');
}

/**
 * A relative path from an untrusted source ('/' separators, and '\' on Windows, where it is one too; '.' and '..'
 * segments), normalised to '/' separators — or undefined when it is empty, absolute or leaves the folder once '..' is
 * resolved. On POSIX a '\' is a character of a name (as in the index's paths, toRel), not a separator: `back\slash.md`
 * names that file, never `back/slash.md`. `sep` is the platform's separator (a parameter for tests).
 */
export function containedRelPath(rel: string, sep: string = path.sep): string | undefined {
  const slashed = sep === '\\' ? rel.replace(/\\/g, '/') : rel;
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed) || slashed.includes('\0')) return undefined;
  const norm = path.posix.normalize(slashed).replace(/\/+$/, '');
  if (norm === '' || norm === '.' || norm === '..' || norm.startsWith('../')) return undefined;
  return norm;
}

/**
 * The file behind a relative path from an untrusted source (a URI anyone can build) that may be handed to the system
 * viewer: only a regular file of a format the index reads, that the filter selects (globs, ignore files, not the store,
 * in no excluded folder), whose real path (every link resolved) lies inside the folder. Returns that real path, or why
 * it is refused.
 */
export function originalFile(folder: string, rel: string, filter: PathFilter, sep: string = path.sep): { abs: string } | { refused: string } {
  const inside = containedRelPath(rel, sep);
  if (!inside) return { refused: 'it is not inside the workspace folder' };
  const parts = inside.split('/');
  const selected = (r: string, ps = r.split('/')) =>
    !!formatOf(r) && filter.accepts(r) && ps.slice(0, -1).every((_, i) => filter.entersDir(ps.slice(0, i + 1).join('/')));
  const notRead = { refused: 'it is not a document the index reads' };
  if (!selected(inside)) return notRead;
  let real: string;
  let realFolder: string;
  try {
    real = fs.realpathSync(path.join(folder, ...parts));
    realFolder = fs.realpathSync(folder);
  } catch {
    return { refused: 'it does not exist' };
  }
  const back = path.relative(realFolder, real);
  if (back === '' || back === '..' || back.startsWith(`..${path.sep}`) || path.isAbsolute(back)) {
    return { refused: 'it is a link that leads out of the workspace folder' };
  }
  // A link is judged by what it leads to too: a .pdf name linked to a script is not a document of the index.
  if (!selected(back.split(path.sep).join('/'))) return notRead;
  if (!fs.statSync(real).isFile()) return { refused: 'it is not a regular file' };
  return { abs: real };
}
