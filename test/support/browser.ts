/**
 * Browser tests: Debian's Chromium driven by playwright-core (never a downloaded
 * browser), axe-core injected into the page, and every console error, page error,
 * failed request and 4xx/5xx response recorded as a problem.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  mobile: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  problems: string[];
  /** Problems a test expects (a declined card is a 422 the browser logs); matched and left out of `unexpected()`. */
  expected: RegExp[];
  unexpected(): string[];
  close(): Promise<void>;
}

/** The merchant's site, on loopback: success_url and cancel_url lead here (playwright cannot stub a redirect's target). */
export async function startShop(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>Shop</title><h1>Shop: ${req.url?.split('?')[0] === '/ok' ? 'thank you' : 'order'}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** A fresh context in the shopper's locale and viewport, recording every problem. */
export async function openPage(browser: Browser, opts: { locale?: string; viewport?: keyof typeof VIEWPORTS } = {}): Promise<OpenedPage> {
  const context = await browser.newContext({ ...VIEWPORTS[opts.viewport ?? 'desktop'], locale: opts.locale ?? 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => !/ERR_ABORTED/.test(r.failure()?.errorText ?? '') && problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`http ${r.status()}: ${r.url()}`));
  const expected: RegExp[] = [];
  const unexpected = () => problems.filter((p) => !expected.some((re) => re.test(p)));
  return { page, context, problems, expected, unexpected, close: () => context.close() };
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }

/** axe-core in the page (evaluated, so the page's CSP does not block it); serious and critical violations. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe
      .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
      .then((r) => r.violations),
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

export const hasHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
