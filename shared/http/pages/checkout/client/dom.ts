/// <reference lib="dom" />
/** A few DOM helpers for the page script: element building (text only, never HTML), copy rows, announcements. */
type Child = Node | string | null | undefined | false;

export function h(tag: string, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) el.setAttribute(k, '');
    else if (typeof v === 'string') el.setAttribute(k, v);
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;

/** Says `text` to screen readers through the page's polite live region. */
export function announce(text: string) {
  let live = byId('live');
  if (!live) {
    live = h('div', { id: 'live', class: 'sr-only', role: 'status', 'aria-live': 'polite' });
    document.body.append(live);
  }
  live.textContent = '';
  window.setTimeout(() => {
    if (live) live.textContent = text;
  }, 50);
}

async function writeClipboard(text: string, input: HTMLInputElement | null): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    input?.select();
    document.execCommand('copy');
  }
}

/** A labelled read-only value with a Copy button that confirms ("Copied") visibly and to screen readers. */
export function copyRow(id: string, label: string, value: string, words: { copy: string; copied: string; announce: string }): HTMLElement {
  const input = h('input', { id, readonly: true, value, spellcheck: 'false' }) as HTMLInputElement;
  const button = h('button', { type: 'button', class: 'btn btn-ghost btn-small', 'aria-describedby': id }, words.copy);
  button.addEventListener('click', async () => {
    await writeClipboard(value, input);
    button.textContent = words.copied;
    announce(words.announce);
    window.setTimeout(() => (button.textContent = words.copy), 2500);
  });
  return h('div', { class: 'field' }, h('label', { for: id }, label), h('div', { class: 'copyrow' }, input, button));
}
