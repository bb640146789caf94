/**
 * The stylesheet of the customer-facing pages (hosted checkout and sandbox pages).
 * Colours meet WCAG AA contrast on their backgrounds; focus is always visible.
 */
export const PAGE_CSS = `
:root{--ink:#1a1f36;--muted:#4f566b;--line:#d5dae3;--field:#6b7385;--bg:#f6f8fb;--brand:#0a5cd5;--brand-dark:#0847a6;--err:#b3261e;
--ok:#0b7a3e}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);
background:var(--bg)}
[hidden]{display:none!important}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.layout{max-width:980px;margin:0 auto;padding:20px 16px 32px;display:grid;gap:20px}
@media (min-width:900px){.layout{grid-template-columns:minmax(0,1fr) minmax(0,1.15fr);gap:48px;padding:56px 24px}.summary{position:sticky;
top:56px;align-self:start}}
.panel{background:#fff;border:1px solid var(--line);border-radius:14px;padding:20px;box-shadow:0 1px 3px rgba(16,24,40,.06)}
@media (min-width:600px){.panel{padding:28px}}
h1,h2,h3{line-height:1.25;margin:0}
.merchant{font-size:1.1rem;font-weight:600}
.label{margin:12px 0 0;color:var(--muted);font-size:.9rem}
.amount{margin:2px 0 8px;font-size:2.1rem;font-weight:700;letter-spacing:-.01em;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}
.small{font-size:.875rem}
.badge{display:inline-block;margin:0 0 12px;background:#fff4d6;color:#5c4300;border:1px solid #e0b84a;border-radius:999px;padding:2px 12px;
font-size:.8rem;font-weight:600}
fieldset{border:0;margin:0 0 22px;padding:0;min-width:0}
legend{font-weight:600;font-size:1rem;margin:0 0 10px;padding:0}
.tiles{display:grid;gap:10px}
.tile{position:relative;display:flex;gap:12px;align-items:flex-start;border:1px solid var(--line);border-radius:12px;padding:12px 14px;
cursor:pointer;background:#fff;transition:border-color .15s,box-shadow .15s}
.tile:hover{border-color:var(--field)}
.tile input{position:absolute;opacity:0;inset:0;width:100%;height:100%;margin:0;cursor:pointer}
.tile:has(input:checked){border-color:var(--brand);box-shadow:0 0 0 1px var(--brand);background:#f2f6fe}
.tile:has(input:focus-visible){outline:3px solid var(--brand);outline-offset:2px}
.tile svg{flex:none;margin-top:2px}
.tile-name{display:block;font-weight:600}
.tile-desc{display:block;color:var(--muted);font-size:.85rem;line-height:1.35}
.tile-check{margin-left:auto;flex:none;width:20px;height:20px;border:2px solid var(--field);border-radius:50%;margin-top:4px}
.tile:has(input:checked) .tile-check{border:6px solid var(--brand)}
.field{margin-bottom:14px}
.row{display:grid;grid-template-columns:1fr 1fr;gap:12px}
label,.field-label{display:block;font-size:.9rem;font-weight:500;margin-bottom:4px}
input,select{width:100%;font:inherit;padding:10px 12px;min-height:46px;border:1px solid var(--field);border-radius:8px;background:#fff;
color:var(--ink)}
input[readonly]{background:var(--bg)}
input[aria-invalid=true]{border-color:var(--err);box-shadow:0 0 0 1px var(--err)}
input:focus-visible,select:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--brand);outline-offset:2px}
.err{color:var(--err);font-size:.875rem;margin:4px 0 0}
.with-brand{position:relative}
.brand-tag{position:absolute;right:10px;top:50%;transform:translateY(-50%);font-size:.75rem;font-weight:700;text-transform:uppercase;
color:var(--muted)}
button{font:inherit;cursor:pointer}
.btn{display:block;width:100%;min-height:48px;border:0;border-radius:8px;background:var(--brand);color:#fff;font-weight:600;
padding:12px 16px;text-align:center;text-decoration:none}
.btn:hover{background:var(--brand-dark)}
.btn[disabled]{opacity:.75;cursor:progress}
.btn-ghost{background:#fff;color:var(--brand);border:1px solid var(--brand);min-height:44px}
.btn-ghost:hover{background:#f2f6fe}
.btn-small{display:inline-block;width:auto;min-height:44px;padding:8px 14px}
.link{background:none;border:0;padding:0;color:var(--brand);text-decoration:underline;font:inherit}
.alert{border-radius:8px;padding:12px 14px;margin:0 0 16px;background:#fdecea;color:#7a1a12;border:1px solid #f1b4ad}
.cancel{margin:18px 0 0;text-align:center;font-size:.9rem}
a{color:var(--brand)}
[tabindex="-1"]:focus{outline:none}
.result h2{font-size:1.25rem;margin-bottom:8px}
.steps{color:var(--muted);margin:0 0 14px}
.qr{display:block;margin:8px auto 16px;width:220px;height:220px;image-rendering:pixelated;border:1px solid var(--line);border-radius:8px}
.copyrow{display:flex;gap:8px;align-items:stretch}
.copyrow input{flex:1;min-width:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
.copyrow button{flex:none}
.facts{margin:0 0 14px;display:grid;gap:10px}
.facts dt{color:var(--muted);font-size:.85rem}
.facts dd{margin:0;font-weight:600;word-break:break-all}
.status{display:flex;align-items:center;gap:10px;margin:16px 0;padding:12px 14px;border-radius:8px;background:var(--bg)}
.status-dot{width:10px;height:10px;border-radius:50%;background:var(--brand);flex:none;animation:pulse 1.4s ease-in-out infinite}
@keyframes pulse{50%{opacity:.3}}
@media (prefers-reduced-motion:reduce){.status-dot{animation:none}}
.countdown{font-variant-numeric:tabular-nums;font-weight:600}
.barcode{margin:8px 0 14px;overflow:hidden}
.barcode svg{display:block;width:100%;height:72px}
.state{text-align:center;padding:12px 0}
.state svg{margin:0 auto 12px;display:block}
.state h2{font-size:1.35rem;margin-bottom:8px}
.state p{margin:0 0 20px}
.done{color:var(--ok)}
.actions{display:grid;gap:10px;margin-top:16px}
footer{grid-column:1/-1;text-align:center;color:var(--muted);font-size:.85rem}
footer p{margin:4px 0}
.langs{display:flex;gap:14px;justify-content:center;list-style:none;padding:0;margin:8px 0 0}
.langs a{display:inline-block;padding:8px 4px;min-width:44px}
.langs a[aria-current]{font-weight:700;color:var(--ink);text-decoration:none}
@media print{body{background:#fff}.no-print,footer,.cancel{display:none!important}.layout{display:block;padding:0}.panel{border:0;
box-shadow:none;padding:0}}
`;
