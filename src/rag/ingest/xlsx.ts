import type { ParsedDocument } from '../types';
export function parseXlsx(_b: Uint8Array, _n?: string): ParsedDocument { throw new Error('todo'); }
