// Waiting on a condition inside a console page from the benchmark process.
import type { Page } from 'playwright-core';

/**
 * Polls `expression` in the page (over DevTools, so the site's CSP, which forbids eval, does not
 * apply: Playwright's waitForFunction evaluates a string predicate with eval) until it is truthy.
 */
export async function pageCondition(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`the page never had ${expression}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
