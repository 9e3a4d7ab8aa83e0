// Public surface of links/: the model-free reference graph between passages (extracted at index time, resolved when read).
export { extractLinks, MAX_NAMES_PER_PASSAGE, type LinkSource } from './extract';
export { resolveEdges, lawsOf, candidateKeys, MAX_TARGETS_PER_KEY, type ResolvedLink } from './resolve';
export { legalReferences, lawIdentity, resolveLaw } from './legal';
