import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The widget on `page`, opened, tells the visitor the site may not use it and offers no question box. */
export async function expectWidgetRefused(page: Page): Promise<void> {
  await page.locator('.bubble').click();
  await expect
    .poll(() =>
      page
        .locator('.not-allowed')
        .textContent()
        .catch(() => ''),
    )
    .toBe('This site is not allowed to use this assistant.');
  expect(await page.getByLabel('Your question').count()).toBe(0);
}
