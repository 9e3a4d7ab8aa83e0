// docs-rag ask (placeholder until its owner lands it)
export async function run(_argv: string[]): Promise<number> {
  throw new Error('docs-rag ask is not implemented yet');
}
