import type { AgentRecord } from '../agent-key-usage-records.js';

/** Fields of an agent that may change after creation. */
export type AgentPatch = Partial<Omit<AgentRecord, 'id' | 'ownerId' | 'createdAt'>>;

/** Agents (Store conformance: `agents`). */
export interface AgentStore {
  /**
   * Inserts an agent. Throws `conflict` on a duplicate id, and on a `handle` that another agent of
   * the same owner holds (owner-less agents count as one owner) or, for a public agent, that
   * another public agent holds: handles are unique within an owner, and public ones overall.
   * Datastore ids are not checked here (the core does).
   */
  createAgent(record: AgentRecord): Promise<void>;
  getAgent(id: string): Promise<AgentRecord | null>;
  /** Agents oldest first; with `ownerId`, only that owner's. */
  listAgents(filter?: { ownerId?: string }): Promise<AgentRecord[]>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. Handles as in `createAgent`. */
  updateAgent(id: string, patch: AgentPatch): Promise<AgentRecord | null>;
  /** Deletes the agent with its conversations and their messages in one step; false when unknown. */
  deleteAgent(id: string): Promise<boolean>;
}
