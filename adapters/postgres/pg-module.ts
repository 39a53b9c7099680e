import type pg from 'pg';
import { RagdeskError } from '../../src/errors.js';

/**
 * The `pg` client, an optional peer dependency: only apps that use Postgres install it, so a default
 * install does not carry it. A missing package becomes an error that says what to install, instead
 * of Node's "Cannot find package" from deep inside ragdesk.
 */
export async function loadPg(): Promise<typeof pg> {
  try {
    return (await import('pg')).default;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND' || !String(error).includes("'pg'")) throw error;
    throw new RagdeskError('invalid_adapter', "the Postgres adapter needs the 'pg' package: install it next to ragdesk (npm install pg)", {
      cause: error,
      details: { package: 'pg' },
    });
  }
}
