// Public surface of links/: the model-free reference graph between passages (extracted at index time, resolved when read).
export { extractLinks, MAX_NAMES_PER_PASSAGE, type LinkSource } from './extract';
export { resolveEdges, lawsOf, candidateKeys, targetMap, MAX_TARGETS_PER_KEY, type ResolvedLink, type LinkTarget } from './resolve';
export { linkSource } from './source';
export { legalReferences, lawIdentity, resolveLaw } from './legal';
