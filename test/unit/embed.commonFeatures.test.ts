// The builtin embedder's prior is reproducible: rebuilding src/rag/embed/commonFeatures.ts from the pinned corpus in
// data/common-features/ gives the committed bytes (so a change of featureHashes without `npm run build:prior` fails).
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { buildCommonFeaturesModule, OUTPUT_FILE, readCorpus } from '../../bench/commonFeatures';
import { COMMON_FEATURES_BASE64 } from '../../src/rag/embed/commonFeatures';

describe('builtin embedder prior (commonFeatures.ts)', () => {
  it('rebuilds byte for byte from the pinned corpus', () => {
    const corpus = readCorpus();
    // The German part is the pinned Grundgesetz file named in data/common-features/README.md.
    assert.equal(createHash('sha256').update(corpus.de).digest('hex'), '829d444bcccf7b0dbb65622b5b4557c92ea18d62dabeff8491a67e16d474df5a');
    const built = buildCommonFeaturesModule(corpus);
    assert.ok(built.features > 10_000 && built.de > 100 && built.en > 1000, `${built.features} features from ${built.de} + ${built.en} passages`);
    assert.equal(built.source, fs.readFileSync(OUTPUT_FILE, 'utf8'), 'commonFeatures.ts differs from a rebuild: run npm run build:prior');
    // The module the embedder imports holds that table: 5 bytes (int32 hash + uint8 weight) per feature.
    assert.equal(Buffer.from(COMMON_FEATURES_BASE64, 'base64').length, built.features * 5);
  });
});
