/**
 * Every compared library, loaded on demand: a child process measuring one peer imports only that
 * peer's library, so its RSS is its own.
 */
import type { PeerFactory } from './peer.js';

export const PEER_IDS = ['ragdesk', 'langchain-memory', 'langchain-hnswlib', 'vectra', 'orama', 'raw-hnswlib', 'raw-fts5'] as const;
export type PeerId = (typeof PEER_IDS)[number];

const LOADERS: Record<PeerId, () => Promise<PeerFactory>> = {
  ragdesk: async () => (await import('./ragdesk.js')).ragdeskPeer,
  'langchain-memory': async () => (await import('./langchain-memory.js')).langchainMemoryPeer,
  'langchain-hnswlib': async () => (await import('./langchain-hnswlib.js')).langchainHnswlibPeer,
  vectra: async () => (await import('./vectra.js')).vectraPeer,
  orama: async () => (await import('./orama.js')).oramaPeer,
  'raw-hnswlib': async () => (await import('./raw-hnswlib.js')).rawHnswlibPeer,
  'raw-fts5': async () => (await import('./raw-fts5.js')).rawFts5Peer,
};

export function isPeerId(value: string): value is PeerId {
  return (PEER_IDS as readonly string[]).includes(value);
}

export function loadPeer(id: PeerId): Promise<PeerFactory> {
  return LOADERS[id]();
}
