/** Minimal server-rendered HTML: escaping and the shared page frame of the hosted and sandbox pages. */
export const esc = (v: unknown) =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function page(title: string, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:2rem;color:#1d2330}
main{max-width:32rem;margin:auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;box-shadow:0 2px 12px #0001}
h1{font-size:1.3rem}.amount{font-size:1.8rem;font-weight:600}.muted{color:#667}
label{display:block;margin:.6rem 0 .2rem;font-size:.9rem}input,select{width:100%;padding:.5rem;box-sizing:border-box;border:1px solid #ccd;border-radius:6px}
button{margin-top:1rem;padding:.7rem 1.2rem;border:0;border-radius:6px;background:#2456d6;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#8a93a6}.methods label{display:inline-block;margin-right:1rem}.error{color:#b00020}
.sandbox{border:2px dashed #e0a800;padding:.2rem .6rem;border-radius:6px;font-size:.8rem;display:inline-block}
code{word-break:break-all;background:#f0f2f5;padding:.2rem}
</style></head><body><main>${body}</main>${script ? `<script>${script}</script>` : ''}</body></html>`;
}

export const htmlResponse = (html: string, status = 200) => ({ status, raw: { contentType: 'text/html; charset=utf-8', text: html } });

export const redirect = (location: string) => ({ status: 303, headers: { location }, raw: { contentType: 'text/plain; charset=utf-8', text: `See ${location}` } });
