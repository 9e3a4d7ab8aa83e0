// The message for a question asked while nothing is indexed (src/views/emptyIndex.ts): a reindex does not help when the
// workspace's ignore files left out every document, so the user is told which setting does.
import * as assert from 'node:assert/strict';
import { emptyIndexMessage } from '../../src/views/emptyIndex';

const NOT_YET = 'Nothing is indexed yet.';

describe('views: the empty-index message', () => {
  it('says "not yet" before any run, and after a run that found documents', () => {
    assert.equal(emptyIndexMessage([], NOT_YET), NOT_YET);
    assert.equal(emptyIndexMessage([undefined], NOT_YET), NOT_YET);
    assert.equal(emptyIndexMessage([{ files: 0, ignored: 3 }, { files: 2 }], NOT_YET), NOT_YET);
  });

  it('after runs that found nothing to index: no document kind it reads, or none readable, and what to do', () => {
    const none = emptyIndexMessage([{ files: 0 }, undefined], NOT_YET);
    assert.match(none, /no file of a kind Docs RAG reads \(Markdown, text, HTML, PDF, DOCX, PPTX, XLSX, images\)/);
    assert.match(none, /widen "docsRag\.include"/);
    assert.match(emptyIndexMessage([{ files: 0, errors: 3 }], NOT_YET), /all 3 documents found in this workspace could not be read\. "Docs RAG: Show index status" lists each/);
    assert.match(emptyIndexMessage([{ files: 0, errors: 1 }], NOT_YET), /the one document found/);
  });

  it('names the ignore files and the setting when they left out every document of every folder that ran', () => {
    const m = emptyIndexMessage([{ files: 0, ignored: 1 }, { files: 0, ignored: 4 }, undefined], NOT_YET);
    assert.match(m, /leave out every document found \(5 documents and folders\)/);
    assert.match(m, /"docsRag\.index\.useIgnoreFiles"/);
    assert.match(emptyIndexMessage([{ files: 0, ignored: 1 }], NOT_YET), /\(1 document or folder\)/);
  });
});
