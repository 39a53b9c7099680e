import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);

export interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: number;
  targets: string[];
}

/** Runs axe-core (WCAG 2.x A and AA rules) in the page; the violations found, by rule. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      nodes: violation.nodes.length,
      targets: violation.nodes.slice(0, 5).map((node) => String(node.target)),
    }));
  })()`);
}
