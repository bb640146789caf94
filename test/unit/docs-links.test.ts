/**
 * The README is the front door and docs/ holds the depth (issue 40): every relative link in README.md and docs/*.md
 * resolves (the file exists; an `#anchor` is a heading of the target, by GitHub's slug rules), every command the README
 * and the docs show names what exists (`npm run X` a package.json script; `npm start -- --flag` an option of
 * bin/local.ts; `npm run cli -- group action --flag` a CLI command and its options), every repository path the README
 * names in backticks exists, and the README stays short: at most 20 KB, no line over 200 characters outside code fences,
 * no path outside the repository (`../shared/...`, which a clone does not have).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { USAGE } from '../../bin/cli/run';
import { scenarioName } from '../../bin/cli/trigger';
import { codeBlocks } from '../support/markdown-commands';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
/** README.md and every docs/*.md, relative to the repository root. */
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/**
 * docs/benchmarks-history.md is a record of past runs: its commands are the ones that existed then. Its links are still
 * checked; its commands are not.
 */
const HISTORICAL = new Set(['docs/benchmarks-history.md']);

/** The Markdown outside fenced code blocks (each fenced line replaced by an empty one, so line numbers hold). */
function outsideFences(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** The fenced code blocks' lines as written (indentation kept). */
const insideFences = (markdown: string) => codeBlocks(markdown).flatMap((b) => b.code.split('\n'));

/** Inline code spans of Markdown prose. */
const inlineCode = (prose: string) => [...prose.matchAll(/(`+)([^`]+?)\1/g)].map((m) => m[2]!.trim());

/** The anchors GitHub gives a file's headings: its slug rules, with -1, -2... for repeats. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of outsideFences(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
      .replace(/<[^>]+>/g, '') // inline HTML
      .replace(/[`*_~]/g, (c) => (c === '_' ? '_' : '')); // code and emphasis marks (underscores stay, as GitHub keeps them)
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** The Markdown links and images outside code: `[text](target)`, the text possibly over several lines. */
function relativeLinks(file: string, markdown: string): Link[] {
  const prose = outsideFences(markdown).replace(/(`+)[^`]*?\1/g, (code) => code.replace(/[^\n]/g, ' '));
  const links: Link[] = [];
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    links.push({ file, line: prose.slice(0, m.index).split('\n').length, target });
  }
  return links;
}

/** Why a link does not resolve, or undefined when it does. */
function brokenLink(link: Link, readTarget: (path: string) => string | undefined = readIfFile): string | undefined {
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? link.file : relative(ROOT, resolve(ROOT, dirname(link.file), decodeURIComponent(pathPart)));
  if (path.startsWith('..')) return `${link.target} leaves the repository`;
  if (!existsSync(join(ROOT, path))) return `${link.target}: no file ${path}`;
  if (anchor === undefined || anchor === '') return undefined;
  const text = readTarget(path);
  if (text === undefined || !path.endsWith('.md')) return `${link.target}: an anchor into ${path}, which is no Markdown file`;
  return headingAnchors(text).has(decodeURIComponent(anchor)) ? undefined : `${link.target}: ${path} has no heading #${anchor}`;
}

function readIfFile(path: string): string | undefined {
  const full = join(ROOT, path);
  return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
}

/** The option names of the first `parseArgs({ options: { ... } })` in a source file. */
function parseArgsOptions(file: string): Set<string> {
  const source = read(file);
  const start = source.indexOf('options: {', source.indexOf('parseArgs('));
  expect(start).toBeGreaterThan(0);
  let depth = 0;
  let end = start + 'options: '.length;
  for (; end < source.length; end++) {
    if (source[end] === '{') depth++;
    else if (source[end] === '}' && --depth === 0) break;
  }
  const body = source.slice(start, end);
  return new Set([...body.matchAll(/^\s*(?:'([a-z][a-z-]*)'|([a-z][a-zA-Z]*)):\s*\{\s*type:/gm)].map((m) => (m[1] ?? m[2])!));
}

/** The commands a doc shows: lines of its fenced blocks and its inline code spans. */
function shownCommands(markdown: string): string[] {
  return [...insideFences(markdown), ...inlineCode(outsideFences(markdown))].map((c) => c.replace(/\s+#\s.*$/, ''));
}

const occurrences = (prefix: RegExp, texts: string[]) =>
  texts.flatMap((t) => [...t.matchAll(new RegExp(`${prefix.source}(.*)$`, 'gm'))].map((m) => m[1]!.split(/\s*(?:&&|\||;)\s*/)[0]!));
const flags = (args: string) => [...args.matchAll(/(?:^|[\s[|])--([a-z][a-z-]*)/g)].map((m) => m[1]!);

const SCRIPTS = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
const START_OPTIONS = parseArgsOptions('bin/local.ts');
const CLI_OPTIONS = parseArgsOptions('bin/cli/run.ts');

describe.each(DOCS)('%s', (file) => {
  const text = read(file);

  test('every relative link resolves: the file exists, and the heading an #anchor names', () => {
    const links = relativeLinks(file, text);
    expect(links.map((l) => brokenLink(l)).filter(Boolean)).toEqual([]);
  });

  test('names no path outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared\b/);
  });

  if (HISTORICAL.has(file)) return;
  const shown = shownCommands(text);

  test('every `npm run X` is a package.json script', () => {
    const names = [...shown.join('\n').matchAll(/\bnpm run ([\w:.-]+)/g)].map((m) => m[1]!);
    expect(names.filter((n) => !SCRIPTS.has(n))).toEqual([]);
  });

  test('every `npm start -- --flag` is an option of bin/local.ts', () => {
    const used = occurrences(/\bnpm start -- /, shown).flatMap(flags);
    expect(used.filter((f) => !START_OPTIONS.has(f))).toEqual([]);
  });

  test('every `npm run cli -- ...` is a CLI command, with options the CLI takes', () => {
    const wrong: string[] = [];
    for (const args of occurrences(/\bnpm run cli -- /, shown)) {
      const words = args.replace(/[[\]]/g, ' ').split(/\s+/).filter(Boolean);
      const [group, action] = words;
      const known =
        group === undefined || group.startsWith('--') || group === '...' // `npm run cli -- ...`: any command
          ? true
          : group === 'trigger'
            ? action === undefined || action.startsWith('--') || Boolean(scenarioName(action))
            : group === 'listen'
              ? USAGE.includes('\n  listen ')
              : (action ?? '').split('|').every((a) => USAGE.includes(`\n  ${group} ${a}`));
      if (!known) wrong.push(`${args}: no command ${group} ${action ?? ''}`);
      for (const f of flags(args)) if (!CLI_OPTIONS.has(f)) wrong.push(`${args}: no option --${f}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('README.md, the front door', () => {
  const readme = read('README.md');

  test('is at most 20 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
  });

  test('has no line over 200 characters outside code fences', () => {
    const long = outsideFences(readme)
      .split('\n')
      .map((line, i) => ({ line: i + 1, length: [...line].length }))
      .filter((l) => l.length > 200);
    expect(long).toEqual([]);
  });

  test('every repository path it names in backticks exists', () => {
    const spans = [
      ...inlineCode(outsideFences(readme)),
      ...insideFences(readme)
        .filter((l) => /^[a-z]+\/\s/.test(l))
        .map((l) => l.split(/\s/)[0]!),
    ];
    const paths = spans.filter(
      (s) =>
        !/[\s<>{}*$:,]/.test(s) &&
        !/^[/@.]/.test(s) && // URL paths, npm packages, .local/ (written at run time)
        (s.includes('/') || /\.(md|json|ts)$/.test(s)),
    );
    expect(paths.length).toBeGreaterThan(3);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  test('links to the runbook, and shows the two commands and the quickstart', () => {
    expect(readme).toContain('](docs/operations.md)');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    expect(readme).toContain('## Five-minute quickstart\n');
  });
});

describe('the checks can fail', () => {
  test('a broken link, a missing anchor and a link out of the repository are found', () => {
    const md = '# Title\n\n## The API\n\nSee [a](docs/nope.md), [b](README.md#no-such-heading), [c](../shared/SPEC.md) and [d](#the-api).';
    const found = relativeLinks('README.md', md).map((l) => brokenLink(l, (p) => (p === 'README.md' ? md : readIfFile(p))));
    expect(found).toEqual([
      expect.stringContaining('no file docs/nope.md'),
      expect.stringContaining('no heading #no-such-heading'),
      expect.stringContaining('leaves the repository'),
      undefined,
    ]);
  });

  test("GitHub's slugs: punctuation dropped, code marks dropped, accents kept, repeats numbered", () => {
    const anchors = headingAnchors(
      "## The API's protection\n## Prerequisites and `cdk bootstrap`\n## PIX out through Efí\n## Tests\n## Tests\n",
    );
    expect([...anchors]).toEqual(['the-apis-protection', 'prerequisites-and-cdk-bootstrap', 'pix-out-through-efí', 'tests', 'tests-1']);
  });
});
