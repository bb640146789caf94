/** The reference page's stylesheet, on top of the pages' base (colours meet WCAG AA; focus stays visible). */
export const DOCS_CSS = `
.skip{position:absolute;left:-999px}.skip:focus{left:16px;top:8px;background:#fff;padding:8px;z-index:2}
.top{max-width:1200px;margin:0 auto;padding:24px 16px 8px}.top h1{font-size:1.6rem}
#q{display:block;width:100%;max-width:420px;font:inherit;padding:6px 10px;border:1px solid var(--field);border-radius:8px;margin:4px 0}
.docs{max-width:1200px;margin:0 auto;padding:0 16px 48px;display:grid;gap:24px}
@media (min-width:960px){.docs{grid-template-columns:260px minmax(0,1fr)}.docs nav{position:sticky;top:12px;align-self:start;
max-height:calc(100vh - 24px);overflow:auto}}
nav ul{list-style:none;margin:0;padding:0 0 0 10px}nav>ul{padding:0}nav li{margin:4px 0}nav a{color:var(--brand-dark)}
main h2{margin:32px 0 8px;font-size:1.35rem}
.op{background:#fff;border:1px solid var(--line);border-radius:12px;padding:16px 20px;margin:14px 0}
.op h3{font-size:1.05rem;display:flex;gap:10px;align-items:center;flex-wrap:wrap}.op h4{margin:14px 0 6px;font-size:.95rem}
.verb{font:700 .75rem/1 ui-monospace,monospace;padding:4px 8px;border-radius:6px;color:#fff;background:#3d4451}
.verb.get{background:#0b6b39}.verb.post{background:#0847a6}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:.875rem}caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}thead th{background:var(--bg)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em}
.code{background:#0f172a;color:#e2e8f0;border-radius:8px;padding:12px;overflow:auto;max-height:360px;font-size:.8rem}
.code:focus{outline:3px solid var(--brand)}
details{border-top:1px solid var(--line);padding:6px 0}summary{cursor:pointer}
.status{font:700 .8rem ui-monospace,monospace;padding:2px 6px;border-radius:6px;background:#e8ecf2}
.status.s2{background:#dff3e7;color:#0b5d30}.status.s3{background:#e6eefc;color:#0847a6}.status.s4{background:#fff0d9;color:#6b4300}
.status.s5{background:#fde7e7;color:#8c1d18}
.err{margin:6px 0;font-size:.875rem;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}.scroll:focus{outline:3px solid var(--brand)}
main,.op{min-width:0}.op h3 code,.top code{overflow-wrap:anywhere}.top p{overflow-wrap:anywhere}
`;
