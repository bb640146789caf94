/**
 * Browser tests: Debian's Chromium driven by playwright-core (never a downloaded
 * browser), axe-core injected into the page, and every console error, page error,
 * failed request and 4xx/5xx response recorded as a problem.
 *
 * Tests live in test/browser/*.test.ts and set their own `jest.setTimeout(60_000)`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { checkResponse } from './contract';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * `--no-sandbox`: CI and dev containers run as root, where Chromium will not start sandboxed
 * (playwright already adds it while `chromiumSandbox` is false, its default; said here so it stays
 * said). The rest keep a headless run quiet and offline (no component updates, sync, QUIC probes)
 * and off /dev/shm.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  mobile: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;

export interface OpenOptions {
  /** BCP 47 tag: sets Accept-Language and navigator.language. Default en-US. */
  locale?: string;
  viewport?: keyof typeof VIEWPORTS;
  /**
   * Problems a test accepts up front: a response (status >= 400), a failed request (status 0), or
   * Chromium's console line about that response ("Failed to load resource: ... status of 404").
   */
  allow?: (url: string, status: number) => boolean;
  /** Trust any certificate: a fake provider's own pages (3-D Secure) are served under its test CA. */
  ignoreHTTPSErrors?: boolean;
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  /** Every console error, page error, failed request and response >= 400, in order, unless `allow`ed. */
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

/** Chromium's own console line for a failed resource: an HTTP status, or a net:: error (status 0 for `allow`). */
const FAILED_RESOURCE = /^Failed to load resource: (?:the server responded with a status of (\d+)|net::ERR_)/;

/**
 * A fresh context in the shopper's locale and viewport, recording every problem;
 * with a `url`, the page has navigated there (load event) when this resolves.
 */
export async function openPage(browser: Browser, url: string, opts?: OpenOptions): Promise<OpenedPage>;
export async function openPage(browser: Browser, opts?: OpenOptions): Promise<OpenedPage>;
export async function openPage(browser: Browser, urlOrOpts?: string | OpenOptions, maybeOpts: OpenOptions = {}): Promise<OpenedPage> {
  const url = typeof urlOrOpts === 'string' ? urlOrOpts : undefined;
  const opts = typeof urlOrOpts === 'string' ? maybeOpts : (urlOrOpts ?? {});
  const allow = opts.allow ?? (() => false);
  const context = await browser.newContext({
    ...VIEWPORTS[opts.viewport ?? 'desktop'],
    locale: opts.locale ?? 'en-US',
    ...(opts.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const failed = FAILED_RESOURCE.exec(m.text());
    if (failed && allow(m.location().url, Number(failed[1] ?? 0))) return;
    problems.push(`console: ${m.text()}${m.location().url ? ` (${m.location().url})` : ''}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (!allow(r.url(), 0)) problems.push(`failed: ${r.url()} ${r.failure()?.errorText ?? ''}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !allow(r.url(), r.status())) problems.push(`http ${r.status()}: ${r.url()}`);
    void contractProblem(r).then((p) => p && problems.push(p));
  });
  const expected: RegExp[] = [];
  const unexpected = () => problems.filter((p) => !expected.some((re) => re.test(p)));
  if (url)
    await page.goto(url).catch(async (e: unknown) => {
      await context.close();
      throw e;
    });
  return { page, context, problems, expected, unexpected, close: () => context.close() };
}

/** Checks an answer of the service under test (PUBLIC_BASE_URL) against openapi.json; other origins are not ours. */
async function contractProblem(r: Response): Promise<string | null> {
  const base = process.env.PUBLIC_BASE_URL;
  if (!base || !r.url().startsWith(base)) return null;
  try {
    const u = new URL(r.url());
    const text = r.status() >= 300 && r.status() < 400 ? undefined : await r.text().catch(() => undefined);
    checkResponse({
      method: r.request().method(),
      path: u.pathname + u.search,
      status: r.status(),
      headers: new Headers(await r.allHeaders()),
      text,
    });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Fails with the list of problems, one a line. */
export function expectNoProblems(problems: readonly string[]): void {
  const listing = problems.length === 0 ? '' : `${problems.length} browser problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`;
  expect(listing).toBe('');
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

/**
 * axe-core's WCAG 2.1 A/AA and best-practice violations on the page as it is now.
 * The source goes in through `page.evaluate` (DevTools protocol), which the page's CSP does not
 * govern; `page.addScriptTag({ content })` would be an inline script the nonce policy blocks.
 */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE);
  return page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe
        .run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
        .then((r) =>
          r.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            helpUrl: v.helpUrl,
            nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
          })),
        ),
    AXE_TAGS,
  );
}

/** One line a violation: impact, rule id, help text and the offending nodes' selectors. */
export function formatViolations(violations: readonly AxeViolation[]): string[] {
  return violations.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/**
 * The serious and critical ones. Given axe results, filters them; given a page, runs axe and
 * returns them formatted (so `expect(await seriousViolations(page)).toEqual([])` reads well).
 */
export function seriousViolations(violations: readonly AxeViolation[]): AxeViolation[];
export function seriousViolations(page: Page): Promise<string[]>;
export function seriousViolations(arg: readonly AxeViolation[] | Page): AxeViolation[] | Promise<string[]> {
  const serious = (vs: readonly AxeViolation[]) => vs.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (Array.isArray(arg)) return serious(arg);
  return runAxe(arg as Page).then((vs) => formatViolations(serious(vs)));
}

/**
 * Whether the page scrolls sideways. Compared with the layout viewport (`clientWidth`), not
 * `innerWidth`: under mobile emulation (isMobile) Chromium, like Chrome on Android, widens the
 * layout viewport to the content (up to 4x the device width), so a 1200px-wide page on a 390px phone
 * reports innerWidth 1216 and `scrollWidth > innerWidth` never fires.
 */
export const hasHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** Bytes of the HTML document itself (the pages are self-contained: CSS and JS are inline). */
export async function pageWeight(url: string, init?: RequestInit): Promise<number> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`pageWeight: ${res.status} for ${url}`);
  return (await res.arrayBuffer()).byteLength;
}
