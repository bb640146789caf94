/**
 * The API reference a merchant reads: GET /docs renders every operation, webhook and error code of the
 * published openapi.json, loads nothing from another origin, passes axe on desktop and mobile, and its
 * filter narrows the list; GET /openapi.json serves the committed document.
 */
import type { Browser } from 'playwright-core';
import { ERRORS } from '../../shared/domain/errors';
import { expectNoProblems, hasHorizontalScroll, launchBrowser, openPage, seriousViolations } from '../support/browser';
import { openApiDocument } from '../support/contract';
import { startTestStack, type TestStack } from '../support/test-stack';

jest.setTimeout(60_000);

let browser: Browser;
let stack: TestStack;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startTestStack()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

describe('GET /openapi.json', () => {
  it('serves the committed document to anyone, without a key', async () => {
    const r = await stack.request('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.body).toEqual(openApiDocument());
  });
});

describe('GET /docs', () => {
  it('documents every operation, webhook and error code, from this origin only', async () => {
    const o = await openPage(browser);
    const origins = new Set<string>();
    o.page.on('request', (req) => origins.add(new URL(req.url()).origin));
    await o.page.goto(`${stack.baseUrl}/docs`);
    const doc = openApiDocument();
    const ids = await o.page.$$eval('section[id]', (els) => els.map((e) => e.id));
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) expect(ids).toContain(slug(op.operationId));
    for (const type of Object.keys(doc.webhooks)) expect(ids).toContain(`webhook-${slug(type)}`);
    const errorRows = await o.page.$$eval('#errors tbody th', (els) => els.map((e) => e.textContent));
    expect(errorRows).toEqual(Object.keys(ERRORS));
    // A request example is shown as JSON a merchant can copy.
    const example = await o.page.locator('#createpayout pre').first().textContent();
    expect(JSON.parse(example ?? '')).toEqual(doc.paths['/api/v1/payout'].post.requestBody.content['application/json'].example);
    expect([...origins]).toEqual([stack.baseUrl]);
    expect(await seriousViolations(o.page)).toEqual([]);
    expectNoProblems(o.unexpected());
    await o.close();
  });

  it('filters endpoints and events by text, and says how many it shows', async () => {
    const o = await openPage(browser, `${stack.baseUrl}/docs`);
    const total = await o.page.locator('[data-search]').count();
    await o.page.getByLabel('Filter endpoints and events').fill('refund');
    const visible = await o.page.locator('[data-search]:visible').count();
    expect(visible).toBeGreaterThan(3);
    expect(visible).toBeLessThan(total);
    expect(await o.page.locator('#createrefund').isVisible()).toBe(true);
    expect(await o.page.locator('#createpayout').isVisible()).toBe(false);
    expect(await o.page.getByRole('status').textContent()).toBe(`${visible} of ${total} shown`);
    expectNoProblems(o.unexpected());
    await o.close();
  });

  it('reads on a phone: no sideways scroll, no serious axe violation', async () => {
    const o = await openPage(browser, `${stack.baseUrl}/docs`, { viewport: 'mobile' });
    expect(await hasHorizontalScroll(o.page)).toBe(false);
    expect(await seriousViolations(o.page)).toEqual([]);
    expectNoProblems(o.unexpected());
    await o.close();
  });
});
