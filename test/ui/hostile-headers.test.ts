/** Request headers anyone can send to the console's page, read in one pass whatever they hold. */
import { describe, expect, it } from 'vitest';
import { UiServer } from '../../adapters/http/ui/serve-ui.js';

describe('console page revalidation', () => {
  const ui = new UiServer({}, '/api', 1024);
  const etag = ui.answer('GET', '/', () => undefined)!.headers.etag!;

  it('matches the ETag in a list, and reads a megabyte of spaces in one pass (quadratic before)', () => {
    const answer = (ifNoneMatch: string) => ui.answer('GET', '/', (name) => (name === 'if-none-match' ? ifNoneMatch : undefined))!.status;
    expect(answer(`"other" ,  ${etag} , "x"`)).toBe(304);
    expect(answer('"other"')).toBe(200);
    expect(answer(`${' '.repeat(1_000_000)}x`)).toBe(200);
  });
});
