/**
 * Method names of a port, derived from its interface: a list typed `Record<RequiredMethodName<P>, true>`
 * fails to compile when the port gains, loses or renames a method, so the start-up check cannot
 * drift from the port (a hand-written list once missed `getDatasources`).
 */
type MethodName<T> = { [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => unknown ? K : never }[keyof T];
type OptionalKey<T> = { [K in keyof T]-?: T extends Record<K, T[K]> ? never : K }[keyof T];

/** Methods every adapter of port `T` must have. */
export type RequiredMethodName<T> = Exclude<MethodName<T>, OptionalKey<T>> & string;
/** Methods an adapter of port `T` may leave out; the core calls them only when present. */
type OptionalMethodName<T> = Extract<MethodName<T>, OptionalKey<T>> & string;

/** What `createRagdesk` checks of one port, both lists exhaustive by type. */
export interface PortMethods<T> {
  required: Record<RequiredMethodName<T>, true>;
  optional: Record<OptionalMethodName<T>, true>;
}
