import type { SourceEntry, SourcePassage } from '../ports/agent-key-usage-records.js';

/**
 * A stored entry as the API describes it: answers written before entries listed their passages
 * read as one passage, the entry's own excerpt.
 */
export function withPassages(entry: Omit<SourceEntry, 'passages'> & { passages?: SourcePassage[] }): SourceEntry {
  if (Array.isArray(entry.passages)) return entry as SourceEntry;
  return {
    ...entry,
    passages: [{ chunk_id: entry.chunk_id, page_number: entry.page_number, text: entry.text, score: entry.score }],
  };
}
