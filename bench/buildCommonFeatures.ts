// Builds src/rag/embed/commonFeatures.ts (the builtin embedder's prior) from the pinned corpus in data/common-features/.
// Run after changing the feature hashing:   npm run build:prior
// Check that the committed file matches:    npm run build:prior -- --check
import * as fs from 'node:fs';
import { buildCommonFeaturesModule, OUTPUT_FILE, readCorpus } from './commonFeatures';

const built = buildCommonFeaturesModule(readCorpus());
if (process.argv.includes('--check')) {
  const same = fs.existsSync(OUTPUT_FILE) && fs.readFileSync(OUTPUT_FILE, 'utf8') === built.source;
  console.log(same ? 'commonFeatures.ts matches its corpus' : 'commonFeatures.ts differs from a rebuild: run npm run build:prior');
  process.exitCode = same ? 0 : 1;
} else {
  fs.writeFileSync(OUTPUT_FILE, built.source);
  console.log(`${built.features} common features from ${built.de} German + ${built.en} English passages`);
}
