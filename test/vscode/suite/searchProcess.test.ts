// The extension searches in its own process (dist/searchWorker.js, forked with IPC): LanceDB and the search pipeline
// never load the extension host, a search process that dies fails the searches it held with the reason, and the next
// search starts a new one that answers from the same index. "In flight" is made deterministic by stopping the child
// (SIGSTOP) before the search is sent and killing it while stopped.
import * as assert from 'node:assert/strict';
import { api, folder, waitUntil } from './helpers';

const QUERY = 'Bis wann kann Resturlaub übertragen werden?';

function lancedbInHost(): string[] {
  return Object.keys(require.cache).filter((id) => id.includes(`${'@lancedb'}/lancedb`));
}

describe('search process', () => {
  it('searches and answers without loading LanceDB into the extension host', async () => {
    const a = await api();
    await a.startup;
    await a.host.idle();
    const { hits } = await a.service.search(QUERY, { k: 5 });
    assert.ok(hits.some((h) => h.hit.passage.path === 'docs/urlaub.md'), `hits: ${hits.map((h) => h.hit.passage.path).join(', ')}`);
    const outcome = await a.service.ask(QUERY, { noModelNote: 'No language model in this test.' });
    assert.ok(outcome.citations.length > 0);
    const status = await a.host.status();
    assert.ok(status[0].passages > 0 && status[0].files.length > 0, 'status reads the index through the search process');
    const pid = a.host.searcher.pid;
    assert.ok(pid && pid !== process.pid, `the search process runs apart from the extension host (pid ${pid}, host ${process.pid})`);
    assert.deepEqual(lancedbInHost(), [], 'LanceDB was loaded into the extension host');
  });

  it('a killed search process fails the search it held with the reason; the next search starts a new one', async () => {
    const a = await api();
    await a.host.idle();
    await a.service.search(QUERY, { k: 3 });
    const first = a.host.searcher.pid;
    assert.ok(first);
    process.kill(first, 'SIGSTOP');
    let pending: Promise<unknown>;
    try {
      pending = a.service.search(QUERY, { k: 3 });
      // The request is on its way to the stopped child; then it dies.
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      process.kill(first, 'SIGKILL');
    }
    await assert.rejects(pending, /search process killed by SIGKILL/);
    const { hits } = await waitUntil('a new search process answers', async () => {
      const r = await a.service.search(QUERY, { k: 3 }).catch(() => null);
      return r && r.hits.length > 0 ? r : null;
    });
    assert.equal(hits[0].folder.uri.toString(), folder().uri.toString());
    const second = a.host.searcher.pid;
    assert.ok(second && second !== first, `a new child (${first} → ${second})`);
  });
});
