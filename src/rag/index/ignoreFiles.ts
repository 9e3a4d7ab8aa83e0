// Git's ignore files as part of the path filter: `.gitignore` and `.ignore` in every folder (their rules apply to the
// paths below that folder, deeper files first, as git and ripgrep read them) and the repository's `.git/info/exclude`.
// A folder inside a repository (a monorepo's `docs/` opened alone) also follows the ignore files of the folders above
// it up to the repository root, as git does ("docs/_build/" in the root's .gitignore); not beyond a repository, and not
// when those rules ignore the folder itself (it was opened on purpose).
// Generated documentation, build output and virtual environments (target/doc, site/, .venv/) hold thousands of HTML and
// text files a team never meant to ask about; the project's ignore files already say so. Rules are matched by the
// `ignore` package (git's pattern semantics); which files apply to a path is this module's part.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** The ignore files read in each folder, in the order their rules are added (later rules win). */
export const IGNORE_FILE_NAMES = ['.gitignore', '.ignore'];

export interface IgnoreRules {
  /** Is the relative path ignored by an ignore file (for a folder: is the folder itself ignored)? */
  ignored(rel: string, isDir: boolean): boolean;
  /** The ignore files above root whose rules were read (parentIgnoreFiles): for watchers. */
  readonly parentFiles: string[];
  /**
   * A walk's listing of a folder (relative path, entry names): a folder without an ignore file among them has no rules,
   * known without looking for the files.
   */
  listed(dir: string, names: string[]): void;
}

/** Is the relative path one of the files whose rules decide what is ignored? */
export function isIgnoreFile(rel: string): boolean {
  return IGNORE_FILE_NAMES.includes(path.posix.basename(rel)) || rel === '.git/info/exclude';
}

/**
 * Can a change of this ignore file change what the index holds? Not when it lies in a folder the index never enters
 * (`entersDir` false: node_modules, an ignored .venv, whose own `.gitignore` a tool rewrites): its rules reach only below it.
 */
export function ignoreFileMatters(rel: string, entersDir: (dir: string) => boolean): boolean {
  if (rel === '.git/info/exclude') return true;
  const dir = path.posix.dirname(rel);
  return dir === '.' || entersDir(dir);
}

function readRules(root: string, dir: string, withExclude = dir === ''): Ignore | null {
  const names = dir === '' ? IGNORE_FILE_NAMES : IGNORE_FILE_NAMES.map((n) => `${dir}/${n}`);
  const sources = withExclude ? ['.git/info/exclude', ...names] : names;
  let rules: Ignore | null = null;
  for (const rel of sources) {
    const abs = path.join(root, rel);
    // Most folders have none: a failed existence check costs a fraction of a failed read (which builds an error).
    if (!fs.existsSync(abs)) continue;
    let text: string;
    try {
      text = fs.readFileSync(abs, 'utf8');
    } catch {
      continue; // unreadable (or gone since): no rules from it
    }
    // As git's core.ignorecase: case-insensitive where the file system usually is (macOS, Windows), not on Linux.
    rules ??= ignore({ ignorecase: process.platform === 'darwin' || process.platform === 'win32' });
    rules.add(text);
  }
  return rules;
}

/**
 * The folders above `root` whose ignore files apply to it: from the repository root (the nearest ancestor holding
 * `.git`) down to root's parent, outermost first. Empty when root is a repository's root or in none.
 */
export function parentIgnoreFolders(root: string): string[] {
  const chain: string[] = [];
  let dir = path.resolve(root);
  if (fs.existsSync(path.join(dir, '.git'))) return [];
  for (;;) {
    const up = path.dirname(dir);
    if (up === dir) return []; // reached the file system's root: no repository
    chain.unshift(up);
    if (fs.existsSync(path.join(up, '.git'))) return chain;
    dir = up;
  }
}

/** The ignore files above `root` that decide what it holds (those of parentIgnoreFolders, present or not): for watchers. */
export function parentIgnoreFiles(root: string): string[] {
  return ignoreFilesIn(parentIgnoreFolders(root));
}

function ignoreFilesIn(folders: string[]): string[] {
  return folders.flatMap((dir, i) => [...(i === 0 ? [path.join(dir, '.git', 'info', 'exclude')] : []), ...IGNORE_FILE_NAMES.map((n) => path.join(dir, n))]);
}

/** What one file's rules say of a path: ignored (true), kept by a negation (false), or nothing (undefined). */
function verdict(rules: Ignore, rel: string): boolean | undefined {
  try {
    const r = rules.test(rel);
    return r.ignored ? true : r.unignored ? false : undefined;
  } catch {
    return undefined; // a path the package refuses ("./x", ""): no rule of this file applies
  }
}

interface ParentRules {
  /** Root's path relative to that folder ('docs', 'packages/api/docs'). */
  prefix: string;
  rules: Ignore;
}

/** The rules of `folders` (parentIgnoreFolders of root), nearest first; none when they ignore root itself. */
function readParentRules(root: string, folders: string[]): ParentRules[] {
  const out: ParentRules[] = [];
  folders.forEach((dir, i) => {
    const rules = readRules(dir, '', i === 0);
    if (rules) out.unshift({ prefix: path.relative(dir, root).split(path.sep).join('/'), rules });
  });
  // Any of them ignoring root (or a folder above it: git re-includes nothing below an ignored folder) drops them all.
  const rootIgnored = out.some(({ prefix, rules }) => verdict(rules, `${prefix}/`) === true);
  return rootIgnored ? [] : out;
}

/**
 * The ignore rules under `root`, read lazily per folder and kept for the life of the returned object (a walk, or a
 * watcher until an ignore file changes).
 */
export function createIgnoreRules(root: string): IgnoreRules {
  const above = parentIgnoreFolders(root);
  const parents = readParentRules(root, above);
  const rulesByDir = new Map<string, Ignore | null>();
  const dirIgnored = new Map<string, boolean>();
  const rulesOf = (dir: string): Ignore | null => {
    let r = rulesByDir.get(dir);
    if (r === undefined) rulesByDir.set(dir, (r = readRules(root, dir)));
    return r;
  };
  // The nearest ignore file with a matching rule decides; a negation ("!keep.md") there keeps the path.
  const decide = (parts: string[], isDir: boolean): boolean => {
    const slash = isDir ? '/' : '';
    for (let d = parts.length - 1; d >= 0; d--) {
      const rules = rulesOf(parts.slice(0, d).join('/'));
      const v = rules ? verdict(rules, parts.slice(d).join('/') + slash) : undefined;
      if (v !== undefined) return v;
    }
    // Then the folders above root, nearest first.
    for (const { prefix, rules } of parents) {
      const v = verdict(rules, `${prefix}/${parts.join('/')}${slash}`);
      if (v !== undefined) return v;
    }
    return false;
  };
  const folderIgnored = (parts: string[]): boolean => {
    const key = parts.join('/');
    let v = dirIgnored.get(key);
    if (v === undefined) {
      v = (parts.length > 1 && folderIgnored(parts.slice(0, -1))) || decide(parts, true);
      dirIgnored.set(key, v);
    }
    return v;
  };
  return {
    parentFiles: ignoreFilesIn(above),
    listed(dir, names) {
      // The root's rules include .git/info/exclude, which no listing of the root shows. Names compared without case:
      // on a file system that ignores case, `.GitIgnore` is read as `.gitignore`.
      if (dir !== '' && !rulesByDir.has(dir) && !names.some((n) => IGNORE_FILE_NAMES.includes(n.toLowerCase()))) rulesByDir.set(dir, null);
    },
    ignored(rel, isDir) {
      if (rel === '' || rel.startsWith('../')) return false;
      const parts = rel.split('/');
      // As in git, nothing below an ignored folder comes back, whatever deeper rules say.
      if (parts.length > 1 && folderIgnored(parts.slice(0, -1))) return true;
      return isDir ? folderIgnored(parts) : decide(parts, false);
    },
  };
}
