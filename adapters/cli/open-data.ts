import { openRagdesk, type OpenRagdeskOptions, type OpenedRagdesk } from '../node.js';
import type { CliIo } from './io.js';

/** Opens the embedded setup in a data folder (SQLite + HNSW; OpenAI when OPENAI_API_KEY is set). */
export function openData(dataDir: string, io: CliIo, extra: Omit<OpenRagdeskOptions, 'dataDir' | 'env'> = {}): OpenedRagdesk {
  return openRagdesk({ ...extra, dataDir, env: io.env });
}

/** Runs `body` on an opened instance and always closes it. */
export async function withData<T>(dataDir: string, io: CliIo, body: (ragdesk: OpenedRagdesk) => Promise<T>): Promise<T> {
  const ragdesk = openData(dataDir, io);
  try {
    return await body(ragdesk);
  } finally {
    await ragdesk.close();
  }
}
