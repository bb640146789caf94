/**
 * Commands in Markdown docs, for the tests that run a doc as written (docs/operations.md, docs/live-stage.md,
 * the README's quickstart): the fenced code blocks with their language and line numbers, and one command line split into
 * the words bash would pass.
 */

export interface Block {
  /** The info string after the opening fence (`bash`, `text`), or empty. */
  readonly lang: string;
  /** The block's text as written (indentation kept, each line ending in a newline). */
  readonly code: string;
  readonly lines: { text: string; line: number }[];
  /** Markdown after the block, up to the next block or heading. */
  readonly after: string;
}

/** The fenced code blocks, with `\`-continued lines joined. */
export function codeBlocks(markdown: string): Block[] {
  const all = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < all.length; i++) {
    if (!all[i]!.startsWith('```')) continue;
    const lines: { text: string; line: number }[] = [];
    let j = i + 1;
    for (; j < all.length && !all[j]!.startsWith('```'); j++) {
      const prev = lines.at(-1);
      if (prev && prev.text.endsWith('\\')) prev.text = `${prev.text.slice(0, -1)} ${all[j]!.trim()}`;
      else lines.push({ text: all[j]!.trim(), line: j + 1 });
    }
    let k = j + 1;
    while (k < all.length && !all[k]!.startsWith('```') && !all[k]!.startsWith('#')) k++;
    const code = all
      .slice(i + 1, j)
      .map((l) => `${l}\n`)
      .join('');
    blocks.push({ lang: all[i]!.slice(3).trim(), code, lines, after: all.slice(j + 1, k).join('\n') });
    i = j;
  }
  return blocks;
}

/**
 * The words bash passes for one command line: single and double quotes, backslashes, `$VAR` / `${VAR}` from
 * `vars` (an unknown variable fails), `#` starting a comment. Pipes, redirections and `$(...)` are refused:
 * a runbook command that can be checked is one plain command.
 */
export function shellWords(line: string, vars: Readonly<Record<string, string>>): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const expand = () => {
    const m = /^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/.exec(line.slice(i));
    if (!m) throw new Error(`"$" that is not a plain variable in: ${line}`);
    const name = (m[1] ?? m[2])!;
    if (!(name in vars)) throw new Error(`$${name} has no test value (add it to VARS) in: ${line}`);
    i += m[0].length;
    return vars[name]!;
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word += line.slice(i + 1, end);
      i = end + 1;
      inWord = true;
    } else if (c === '"') {
      i++;
      inWord = true;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && '"$\\`'.includes(line[i + 1] ?? '')) {
          word += line[i + 1];
          i += 2;
        } else if (line[i] === '$') word += expand();
        else if (line[i] === '`') throw new Error(`command substitution in: ${line}`);
        else word += line[i++];
      }
      if (line[i] !== '"') throw new Error(`unterminated " in: ${line}`);
      i++;
    } else if (c === '\\') {
      word += line[i + 1] ?? '';
      i += 2;
      inWord = true;
    } else if (c === '$') {
      word += expand();
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === '#' && !inWord) {
      break;
    } else if ('|;&<>()`'.includes(c)) {
      throw new Error(`shell operator ${c} in a runbook command: ${line}`);
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
