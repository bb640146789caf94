/**
 * The browser harness itself, against pages served here (not the checkout): the nonce'd script
 * runs under a strict CSP and axe still runs; axe finds a known violation; console errors, page
 * errors, failed requests and 404s are all recorded; a too-wide page scrolls sideways on mobile.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import {
  expectNoProblems,
  formatViolations,
  hasHorizontalScroll,
  launchBrowser,
  openPage,
  pageWeight,
  runAxe,
  seriousViolations,
  type OpenedPage,
  type OpenOptions,
} from '../support/browser';

jest.setTimeout(60_000);

const CSP = [
  "default-src 'none'",
  "script-src 'nonce-abc'",
  "style-src 'nonce-abc'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const doc = (title: string, body: string, script = '', css = '') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<style nonce="abc">body { font: 16px/1.5 sans-serif; margin: 0; padding: 1rem; color: #1a1a1a; background: #fff; }${css}</style>
</head>
<body>
<main>
${body}
</main>
${script && `<script nonce="abc">${script}</script>`}
</body>
</html>`;

const PAGES: Record<string, string> = {
  '/ok': doc(
    'Harness',
    `<h1>Harness</h1>
<p id="out">pending</p>
<form action="/ok" method="post"><label for="email">Email</label> <input id="email" name="email" type="email">
<button type="submit">Send</button></form>`,
    `document.getElementById('out').textContent = 'script ran';`,
  ),
  '/bad': doc(
    'Bad',
    `<h1>Bad</h1>
<p id="faint" class="faint">Hard to read</p>
<input id="nameless" type="text">`,
    '',
    ' .faint { color: #c8c8c8 }',
  ),
  '/noisy': doc(
    'Noisy',
    `<h1>Noisy</h1><p id="state">loading</p>`,
    `fetch('/missing')
  .then(() => fetch('/drop').catch(() => {}))
  .then(() => {
    console.error('x');
    document.getElementById('state').textContent = 'done';
    setTimeout(() => { throw new Error('boom'); });
  });`,
  ),
  '/wide': doc('Wide', `<h1>Wide</h1><div id="wide">wide</div>`, '', ' #wide { width: 1200px }'),
};

function serve(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/drop') return req.socket.destroy(); // a failed request, not a response
    if (path === '/lang') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
      return res.end(doc('Lang', `<h1 id="al">${String(req.headers['accept-language'] ?? '').replace(/[<&]/g, '')}</h1>`));
    }
    const html = PAGES[path];
    if (!html) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
    res.end(req.method === 'POST' ? doc('Sent', '<h1>Sent</h1>') : html);
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => r({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

/** Console and network events arrive on their own; wait until `done` or fail with what arrived. */
async function until(what: string, done: () => boolean, got: () => unknown, ms = 5_000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(got(), null, 2)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let browser: Browser;
let server: Server;
let base: string;
const opened: OpenedPage[] = [];
beforeAll(async () => {
  [browser, { server, base }] = await Promise.all([launchBrowser(), serve()]);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

async function open(url: string, opts?: OpenOptions) {
  const o = await openPage(browser, url, opts);
  opened.push(o);
  return o;
}

describe('browser harness', () => {
  it('runs the nonce’d script under the strict CSP, and axe runs there too and passes an accessible page', async () => {
    const { page, problems } = await open(`${base}/ok`);
    expect(await page.textContent('#out')).toBe('script ran');
    const violations = await runAxe(page);
    expect(formatViolations(violations)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]); // the page-taking form, as the checkout tests use it
    expect(await hasHorizontalScroll(page)).toBe(false);
    expect(page.viewportSize()).toEqual({ width: 1280, height: 800 });
    expectNoProblems(problems);

    // The CSP is real: an inline script without the nonce (what addScriptTag({ content }) adds) is refused and logged.
    await expect(page.addScriptTag({ content: 'window.injected = 1' })).rejects.toThrow();
    expect(await page.evaluate(() => (window as { injected?: number }).injected)).toBeUndefined();
    await until(
      'the CSP violation',
      () => problems.length > 0,
      () => problems,
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^console: Executing inline script violates the following Content Security Policy directive 'script-src 'nonce-abc''/,
      ),
    ]);
  });

  it('finds a known violation, so the accessibility check can fail', async () => {
    const { page, problems } = await open(`${base}/bad`);
    const violations = await runAxe(page);
    const ids = violations.map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['label', 'color-contrast']));
    const serious = seriousViolations(violations);
    expect(serious.map((v) => v.id)).toEqual(expect.arrayContaining(['label', 'color-contrast']));
    const lines = formatViolations(serious);
    expect(lines.find((l) => l.includes(' label:'))).toMatch(/^critical label: .+ at \["#nameless"\]$/);
    expect(lines.find((l) => l.includes(' color-contrast:'))).toMatch(/^serious color-contrast: .+ at \["#faint"\]$/);
    expect(await seriousViolations(page)).toEqual(lines);
    expectNoProblems(problems);
  });

  it('records console errors, page errors, failed requests and error responses', async () => {
    const { page, problems } = await open(`${base}/noisy`);
    await page.waitForSelector('#state:text("done")');
    await until(
      'every problem',
      () => problems.length >= 6,
      () => problems,
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        `http 404: ${base}/missing`,
        expect.stringMatching(/^console: Failed to load resource: the server responded with a status of 404 .*\/missing\)$/),
        expect.stringMatching(new RegExp(`^failed: ${base}/drop net::ERR_`)),
        expect.stringMatching(/^console: Failed to load resource: net::ERR_.*\/drop\)$/),
        `console: x (${base}/noisy)`,
        'pageerror: boom',
      ]),
    );
    expect(problems).toHaveLength(6);
    expect(() => expectNoProblems(problems)).toThrow(/6 browser problem\(s\):\n {2}- /);
  });

  it('lets a test allow the failures it expects', async () => {
    const allow = (url: string, status: number) => (url.endsWith('/missing') && status === 404) || (url.endsWith('/drop') && status === 0);
    const { page, problems } = await open(`${base}/noisy`, { allow });
    await page.waitForSelector('#state:text("done")');
    await until(
      'the rest',
      () => problems.length >= 2,
      () => problems,
    );
    await page.waitForTimeout(100);
    expect(problems).toEqual([`console: x (${base}/noisy)`, 'pageerror: boom']);
  });

  it('mobile: 390px wide at 2x with touch; a too-wide page scrolls sideways, a fitting one does not', async () => {
    const fits = await open(`${base}/ok`, { viewport: 'mobile' });
    const size = () => [window.innerWidth, document.documentElement.clientWidth, devicePixelRatio, navigator.maxTouchPoints > 0];
    expect(await fits.page.evaluate(size)).toEqual([390, 390, 2, true]);
    expect(await hasHorizontalScroll(fits.page)).toBe(false);
    const wide = await open(`${base}/wide`, { viewport: 'mobile' });
    expect(await hasHorizontalScroll(wide.page)).toBe(true);
    // Why the check compares with clientWidth: mobile emulation widens innerWidth to the content.
    expect(await wide.page.evaluate(() => [window.innerWidth > 390, document.documentElement.scrollWidth > window.innerWidth])).toEqual([
      true,
      false,
    ]);
    expectNoProblems([...wide.problems, ...fits.problems]);
  });

  it('locale sets Accept-Language and navigator.language', async () => {
    const { page } = await open(`${base}/lang`, { locale: 'pt-BR' });
    expect(await page.textContent('#al')).toMatch(/^pt-BR\b/);
    expect(await page.evaluate(() => navigator.language)).toBe('pt-BR');
  });

  it('pageWeight is the HTML byte length', async () => {
    expect(await pageWeight(`${base}/ok`)).toBe(Buffer.byteLength(PAGES['/ok']!));
    await expect(pageWeight(`${base}/nope`)).rejects.toThrow(/404/);
  });
});
