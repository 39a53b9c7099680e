/**
 * The version of the port contracts an adapter implements. Every port carries it as
 * `specificationVersion`, and `createRagdesk` refuses an adapter written for another version (or for
 * none) with `invalid_adapter`, at start-up rather than at the first call that behaves differently.
 * It changes only when a port changes in a way an existing adapter could get wrong.
 */
export type SpecificationVersion = 'v1';
