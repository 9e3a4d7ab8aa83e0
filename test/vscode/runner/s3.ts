// The S3 API server of the team-index suite (test/vscode/suite/team.test.ts): s3rver on loopback, started by the runner
// for the VS Code session, with a bucket `team` and a key pair of the test's own. The session's environment carries
// the standard AWS variables, as a member's machine would, so the extension's processes and the CLI the suite runs
// reach it; XDG_CACHE_HOME keeps the remote store's mirror inside the session's temporary folder.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import S3rver from 's3rver';

export const TEST_BUCKET = 'team';
const KEY = 'AKIADOCSRAGVSCODE001';
const SECRET = 'docs-rag-vscode-test-secret';

export async function startTestS3(tmp: string): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  const dir = path.join(tmp, 's3');
  mkdirSync(dir, { recursive: true });
  // s3rver checks each request's signature against the key pairs of its account: the test's pair is added to it.
  (require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } }).DUMMY_ACCOUNT.createKeyPair(KEY, SECRET);
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: TEST_BUCKET, configs: [] }] });
  const { port } = await server.run();
  return {
    env: {
      AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: KEY,
      AWS_SECRET_ACCESS_KEY: SECRET,
      AWS_REGION: 'us-east-1',
      AWS_ALLOW_HTTP: 'true',
      XDG_CACHE_HOME: path.join(tmp, 'cache'),
    },
    close: () => server.close(),
  };
}
