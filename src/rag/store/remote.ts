// A store in object storage (a team's shared index): the URI forms LanceDB opens, the storage options taken from the
// environment, and the local folder that holds the store's small files on this machine.
//
// LanceDB reads and writes the tables themselves on the object store. The store's small files (meta.json, the German
// vocabulary, the vector-index notes) are kept in its table `store_files` (sideFiles.ts) and mirrored into a folder of
// the user's cache, so the code that reads them stays the same for both kinds of store.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

/** Object-store schemes LanceDB opens (s3+ddb: S3 with a DynamoDB commit table). */
export const REMOTE_SCHEMES = ['s3', 's3+ddb', 'gs', 'az'] as const;
export type RemoteScheme = (typeof REMOTE_SCHEMES)[number];

export interface RemoteLocation {
  /** Normalised URI: scheme://bucket/prefix, without a trailing slash. */
  uri: string;
  scheme: RemoteScheme;
  bucket: string;
}

export class StoreUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUriError';
  }
}

/**
 * Whether a store argument is meant as a URI: a scheme of two or more letters and a colon (`s3:`, `https:`). A single
 * letter is a Windows drive (`C:\index`). Such an argument is never taken as a local path: `s3:/team` is not a folder
 * named `s3:` but a malformed URI.
 */
export function looksLikeUri(store: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(store);
}

/** Parses an object-store URI; a StoreUriError says what is wrong with one that is not supported or malformed. */
export function parseStoreUri(store: string): RemoteLocation {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]+):(.*)$/s.exec(store);
  if (!m) throw new StoreUriError(`"${store}" is not a URI`);
  const scheme = m[1].toLowerCase();
  const supported = `supported: ${REMOTE_SCHEMES.map((s) => `${s}://bucket/path`).join(', ')}, or a local folder`;
  if (!(REMOTE_SCHEMES as readonly string[]).includes(scheme)) throw new StoreUriError(`the store "${store}" has the scheme ${scheme}:, which docs-rag does not open (${supported})`);
  const rest = m[2];
  if (!rest.startsWith('//')) throw new StoreUriError(`the store "${store}" is not a well-formed URI: write ${scheme}://bucket/path`);
  const [authority, ...parts] = rest.slice(2).split('/');
  // Credentials belong in the environment, never in the URI (which is printed and recorded).
  if (authority.includes('@') || authority.includes(':')) throw new StoreUriError(`the store "${scheme}://${authority.replace(/^.*@/, '…@')}/…" names credentials or a port in the URI: give the bucket only, and credentials and endpoint in the environment (AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL, …)`);
  if (!/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/i.test(authority)) throw new StoreUriError(`the store "${store}" has no valid bucket name after ${scheme}://`);
  const prefix = parts.filter((p) => p !== '');
  if (prefix.some((p) => p === '.' || p === '..' || /[\x00-\x1f\\]/.test(p))) throw new StoreUriError(`the store "${store}" has a path segment that is not allowed ("." , "..", control characters or backslashes)`);
  return { uri: `${scheme}://${authority}${prefix.length > 0 ? `/${prefix.join('/')}` : ''}`, scheme: scheme as RemoteScheme, bucket: authority };
}

/**
 * LanceDB storage options from the standard environment variables. S3: endpoint, region, keys and plain HTTP (for a
 * local server); without keys LanceDB's own credential chain applies (profiles in ~/.aws, instance roles). GCS and
 * Azure read their variables (GOOGLE_SERVICE_ACCOUNT, AZURE_STORAGE_ACCOUNT_NAME, …) in LanceDB itself. The values
 * are handed to LanceDB only: never written to a file, a log or a trace.
 */
export function storageOptionsFromEnv(scheme: RemoteScheme, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (scheme !== 's3' && scheme !== 's3+ddb') return {};
  const out: Record<string, string> = {};
  const set = (key: string, ...names: string[]) => {
    const value = names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
    if (value !== undefined) out[key] = value;
  };
  set('endpoint', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL', 'AWS_ENDPOINT');
  set('region', 'AWS_REGION', 'AWS_DEFAULT_REGION');
  set('aws_access_key_id', 'AWS_ACCESS_KEY_ID');
  set('aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY');
  set('aws_session_token', 'AWS_SESSION_TOKEN');
  set('allow_http', 'AWS_ALLOW_HTTP');
  set('aws_virtual_hosted_style_request', 'AWS_VIRTUAL_HOSTED_STYLE_REQUEST');
  return out;
}

/** The folder on this machine that mirrors a remote store's small files (the writer lock lives there too). */
export function mirrorDirFor(uri: string, env: NodeJS.ProcessEnv = process.env): string {
  const cacheRoot = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const key = createHash('sha256').update(uri).digest('hex').slice(0, 16);
  return path.join(cacheRoot, 'docs-rag', 'remote', key);
}

/** Where a store argument points: a local folder (made absolute) or an object-store URI with its mirror folder. */
export interface StoreLocation {
  /** What LanceDB connects to: the absolute folder, or the URI. */
  uri: string;
  /** The local folder of the store's small files and its writer lock: the store folder itself, or the mirror. */
  dir: string;
  remote: RemoteLocation | null;
}

/** Resolves a store argument (a folder, or a URI: see looksLikeUri); throws StoreUriError for a bad URI. */
export function storeLocation(store: string, env: NodeJS.ProcessEnv = process.env): StoreLocation {
  if (!looksLikeUri(store)) {
    const dir = path.resolve(store);
    return { uri: dir, dir, remote: null };
  }
  const remote = parseStoreUri(store);
  return { uri: remote.uri, dir: mirrorDirFor(remote.uri, env), remote };
}

/** A write to a store opened read-only: a team member's view of the index a builder keeps. */
export class ReadOnlyStoreError extends Error {
  constructor(readonly uri: string) {
    super(
      `${uri} is a team index, opened read-only here: it is built and updated by its builder (a CI job or one machine) ` +
        `with docs-rag index <folder> --store ${uri}. Ask them to update it, or keep an index of your own (leave the store setting out).`,
    );
    this.name = 'ReadOnlyStoreError';
  }
}
