/**
 * GET /docs: the API reference, rendered on the server from the published openapi.json (no CDN, no
 * framework): operations by tag with their parameters, bodies, answers and examples, the webhooks with
 * their signature headers, and the error-code reference. A small nonce'd script filters by text.
 */
import { errorReference, ERROR_SHAPES } from '../../../contract/errors.contract';
import type { HttpResponse } from '../../types';
import { esc, htmlPage } from '../html';
import { DOCS_CSS } from './docs.styles';
import { fieldRows, typeLabel } from './schema-fields';

// The document is JSON walked by key at run time; its shape is checked by the contract tests, not here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
/** Escaped text with `backticks` as <code>. */
const prose = (v: unknown) => esc(v).replace(/`([^`]+)`/g, '<code>$1</code>');
/** Wide tables scroll inside their own keyboard-reachable region instead of widening the page. */
const scroller = (label: string, table: string) =>
  `<div class="scroll" role="region" tabindex="0" aria-label="${esc(label)}">${table}</div>`;
const code = (v: unknown) => `<pre class="code" tabindex="0"><code>${esc(JSON.stringify(v, null, 2))}</code></pre>`;

function fieldsTable(caption: string, schema: Doc | undefined, doc: Doc): string {
  const rows = fieldRows(schema, doc);
  if (rows.length === 0) return '';
  const body = rows
    .map(
      (r) =>
        `<tr><th scope="row"><code>${esc(r.name)}</code></th><td>${esc(r.type)}</td><td>${r.required ? 'yes' : 'no'}</td>` +
        `<td>${esc(r.notes)}</td></tr>`,
    )
    .join('');
  return scroller(
    caption,
    `<table><caption class="sr-only">${esc(caption)}</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th>
<th scope="col">Required</th><th scope="col">Notes</th></tr></thead><tbody>${body}</tbody></table>`,
  );
}

function parametersTable(params: Doc[] | undefined, doc: Doc): string {
  if (!params?.length) return '';
  const body = params
    .map(
      (p) =>
        `<tr><th scope="row"><code>${esc(p.name)}</code></th><td>${esc(p.in)}</td><td>${esc(typeLabel(p.schema ?? {}, doc))}</td>` +
        `<td>${p.required ? 'yes' : 'no'}</td><td>${esc(p.description ?? p.schema?.description ?? '')}</td></tr>`,
    )
    .join('');
  const table = `<table><caption class="sr-only">Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th>
<th scope="col">Type</th><th scope="col">Required</th><th scope="col">Notes</th></tr></thead><tbody>${body}</tbody></table>`;
  return `<h4>Parameters</h4>${scroller('Parameters', table)}`;
}

function responseBlock(status: string, r: Doc, doc: Doc): string {
  if (Number(status) >= 400 && String(r.description).startsWith('Error: ')) {
    // Error answers share three shapes (see Error codes); list the codes only.
    return `<p class="err"><span class="status s${status[0]}">${esc(status)}</span> ${prose(r.description.slice(7))}</p>`;
  }
  const [type, media] = (Object.entries(r.content ?? {})[0] ?? []) as [string | undefined, Doc | undefined];
  const json = type === 'application/json' && media;
  const headers = Object.keys(r.headers ?? {});
  return `<details${status.startsWith('2') ? ' open' : ''}><summary><span class="status s${status[0]}">${esc(status)}</span> ${esc(
    r.description,
  )}</summary>${type && !json ? `<p class="muted">${esc(type)}</p>` : ''}${
    headers.length ? `<p class="muted small">Headers: ${headers.map((h) => `<code>${esc(h)}</code>`).join(', ')}</p>` : ''
  }${json ? fieldsTable(`${status} body`, media.schema, doc) + (media.example !== undefined ? code(media.example) : '') : ''}</details>`;
}

function requestBlock(type: string, media: Doc, doc: Doc): string {
  const example = media.example !== undefined ? code(media.example) : '';
  return `<h4>Request body <span class="muted small">(${esc(type)})</span></h4>${fieldsTable('Request body', media.schema, doc)}${example}`;
}

function operationSection(path: string, method: string, op: Doc, doc: Doc): string {
  const media = op.requestBody?.content ? (Object.entries(op.requestBody.content)[0] as [string, Doc]) : undefined;
  const id = slug(op.operationId);
  const search = `${method} ${path} ${op.summary} ${op.operationId}`.toLowerCase();
  return `<section class="op" id="${id}" aria-labelledby="${id}-h" data-search="${esc(search)}">
<h3 id="${id}-h"><span class="verb ${method}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p>${op.description ? `<p class="muted small">${prose(op.description)}</p>` : ''}
${parametersTable(op.parameters, doc)}
${media ? requestBlock(media[0], media[1], doc) : ''}
<h4>Responses</h4>${Object.entries(op.responses ?? {})
    .map(([status, r]) => responseBlock(status, r as Doc, doc))
    .join('')}
</section>`;
}

function webhookSection(type: string, op: Doc, doc: Doc): string {
  const media = op.requestBody.content['application/json'] as Doc;
  const id = `webhook-${slug(type)}`;
  return `<section class="op" id="${id}" aria-labelledby="${id}-h" data-search="${esc(`webhook ${type} ${op.summary}`.toLowerCase())}">
<h3 id="${id}-h"><span class="verb post">EVENT</span> <code>${esc(type)}</code></h3><p>${esc(op.summary)}</p>
<p class="muted small">${esc(op.description)}</p>${parametersTable(op.parameters, doc)}
${fieldsTable('Body', media.schema, doc)}${code(media.example)}</section>`;
}

function errorsSection(): string {
  const rows = errorReference()
    .map(
      (r) =>
        `<tr><th scope="row"><code>${esc(r.code)}</code></th><td>${r.status}</td><td><code>${esc(r.direct)}</code></td>` +
        `<td>${esc(r.meaning)}</td><td>${esc(r.action)}</td></tr>`,
    )
    .join('');
  const shapes = Object.entries(ERROR_SHAPES)
    .map(([family, shape]) => `<li><b>${esc(family)}</b>: ${esc(shape.replace(/`/g, ''))}</li>`)
    .join('');
  return `<section id="errors" aria-labelledby="errors-h"><h2 id="errors-h">Error codes</h2>
<p>Every 4xx carries a stable code and a message you can act on; a 5xx names only a request id.
Each route answers in one of three shapes:</p>
<ul>${shapes}</ul>${scroller(
    'Error codes',
    `<table><caption class="sr-only">Error codes</caption><thead><tr><th scope="col">Code</th><th scope="col">HTTP</th>
<th scope="col">direct</th><th scope="col">Meaning</th><th scope="col">What to do</th></tr></thead><tbody>${rows}</tbody></table>`,
  )}</section>`;
}

const FILTER_SCRIPT = `(function(){var q=document.getElementById('q'),n=document.getElementById('count');
var ops=[].slice.call(document.querySelectorAll('[data-search]'));
q.addEventListener('input',function(){var t=q.value.trim().toLowerCase(),shown=0;
ops.forEach(function(o){var hit=!t||o.getAttribute('data-search').indexOf(t)>=0;o.hidden=!hit;if(hit)shown++;});
n.textContent=t?shown+' of '+ops.length+' shown':'';});})();`;

/** The reference page; the body is rendered once per document (module-level cache in the handler). */
export function renderDocsBody(doc: Doc): string {
  const byTag = new Map<string, string[]>();
  const nav = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths as Doc))
    for (const [method, op] of Object.entries(item as Doc)) {
      const tag = (op.tags?.[0] as string) ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationSection(path, method, op, doc)]);
      nav.set(tag, [...(nav.get(tag) ?? []), `<li><a href="#${slug(op.operationId)}">${esc(op.summary.split(/[.(:]/)[0])}</a></li>`]);
    }
  const tags = (doc.tags as Array<{ name: string; description: string }>).filter((t) => byTag.has(t.name));
  const sections = tags
    .map(
      (t) =>
        `<section aria-labelledby="tag-${slug(t.name)}"><h2 id="tag-${slug(t.name)}">${esc(t.name)}</h2>` +
        `<p class="muted">${esc(t.description)}</p>${(byTag.get(t.name) ?? []).join('')}</section>`,
    )
    .join('');
  const hooks = Object.entries(doc.webhooks as Doc)
    .map(([type, item]) => webhookSection(type, (item as Doc).post, doc))
    .join('');
  const navHtml = tags
    .map((t) => `<li><a href="#tag-${slug(t.name)}">${esc(t.name)}</a><ul>${(nav.get(t.name) ?? []).join('')}</ul></li>`)
    .join('');
  return `<a class="skip" href="#main">Skip to the reference</a>
<header class="top"><h1>${esc(doc.info.title)} <span class="muted small">version ${esc(doc.info.version)}</span></h1>
<p>${esc(doc.info.description)}</p>
<p class="small">Authenticate with <code>X-API-Key: sk_test_...</code> (or <code>Authorization: Bearer</code>).
Machine-readable: <a href="/openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<label for="q">Filter endpoints and events</label> <input id="q" type="search" autocomplete="off">
<span id="count" role="status" class="muted small"></span></header>
<div class="docs"><nav aria-label="Reference"><ul>${navHtml}<li><a href="#webhooks-h">Webhooks</a></li>
<li><a href="#errors-h">Error codes</a></li></ul></nav>
<main id="main">${sections}<section aria-labelledby="webhooks-h"><h2 id="webhooks-h">Webhooks</h2>
<p class="muted">Verify each delivery before trusting it: the hex HMAC-SHA256 header over the raw body,
or the Standard Webhooks headers.</p>${hooks}</section>
${errorsSection()}</main></div>`;
}

export function renderDocsPage(body: string): HttpResponse {
  const page = htmlPage({ title: 'API reference', body, script: FILTER_SCRIPT, extraCss: DOCS_CSS });
  return { ...page, headers: { ...page.headers, 'cache-control': 'public, max-age=300' } };
}
