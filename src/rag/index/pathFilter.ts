// The one answer to "does this path belong to the index?", shared by the walker (index/walk.ts) and the file watchers
// (src/views/watcher.ts, src/mcp/watch.ts), so all select the same files: include globs match case-insensitively
// (Report.PDF is a PDF), exclude globs, the store folder and the folder's ignore files (index/ignoreFiles.ts) are honoured
// the same way. Also normalises relative paths that come from outside (URIs, hints) and says whether they stay inside
// the folder.
import * as path from 'node:path';
import picomatch from 'picomatch';
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
