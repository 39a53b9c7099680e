import { RagdeskError } from '../../src/index.js';
import type { OperationContext } from './operation.js';

/** The listed query string parameters that are present; repeating one is a 400 naming it. */
export function queryObject(context: OperationContext, names: readonly string[]): Record<string, string> {
  const query = context.request.query;
  const picked: Record<string, string> = {};
  for (const name of names) {
    const values = query.getAll(name);
    if (values.length > 1) {
      throw new RagdeskError('invalid_request', `Give ${name} at most once`, {
        details: { issues: [{ path: name, message: 'repeated' }] },
      });
    }
    if (values[0] !== undefined && values[0] !== '') picked[name] = values[0];
  }
  return picked;
}
