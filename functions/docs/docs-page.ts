/**
 * The static reference (/api/2.0/doc/static), for browsers without JavaScript: every operation
 * with who may call it, its parameters, body and response schemas and examples. Plain HTML, no
 * scripts; the interactive page (reference-page.ts) is the main one.
 */
import { escapeHtml } from '../../shared/domain/wiki-syntax/escape.ts';

type Json = Record<string, any>;

function schemaBlock(schema: unknown): string {
  return `<pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre>`;
}

/** The Markdown the descriptions use: `code` and **bold**, on escaped text. */
function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\n\n/g, '</p><p>');
}

/** A parameter's type in a few words: `integer`, `one of: a, b`, `string (date-time)`. */
function typeSummary(schema: Json | undefined): string {
  if (!schema) return 'string';
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.join(', ')}`;
  if (schema.anyOf) return (schema.anyOf as Json[]).map(typeSummary).join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  return schema.format ? `${type} (${schema.format})` : String(type);
}

function parameterTable(parameters: Json[]): string {
  const rows = parameters.map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td>` +
      `<td>${escapeHtml(typeSummary(p.schema))}</td>` +
      `<td>${p.example !== undefined ? `<code>${escapeHtml(String(p.example))}</code>` : ''}</td></tr>`,
  );
  return (
    '<table><tr><th>parameter</th><th>in</th><th>required</th><th>type</th><th>example</th></tr>' +
    `${rows.join('')}</table>`
  );
}

function contentBlock(label: string, content: Json): string {
  const example = content.example !== undefined ? `<p>Example</p>${schemaBlock(content.example)}` : '';
  return `<details><summary>${label}</summary><p>Schema</p>${schemaBlock(content.schema)}${example}</details>`;
}

function operationHtml(method: string, path: string, operation: Json): string {
  const parameters = (operation.parameters as Json[]) ?? [];
  const body = operation.requestBody?.content?.['application/json'];
  const success = Object.entries((operation.responses ?? {}) as Record<string, Json>).find(
    ([, response]) => response.content?.['application/json'],
  );
  return `<section class="op${operation.deprecated ? ' deprecated' : ''}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${inlineMarkdown(operation.summary ?? '')}${operation.deprecated ? ' <strong>(deprecated)</strong>' : ''}</p>
${operation.description ? `<p>${inlineMarkdown(operation.description)}</p>` : ''}
${parameters.length ? parameterTable(parameters) : ''}
${body ? contentBlock('Request body', body) : ''}
${success ? contentBlock(`Response ${success[0]}`, success[1].content['application/json']) : ''}
<p class="responses">Responses: ${Object.keys(operation.responses ?? {})
    .map((code) => `<code>${code}</code>`)
    .join(' ')}</p>
</section>`;
}

export function renderDocsPage(document: Json): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(methods as Json)) {
      const tag = (operation as Json).tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operationHtml(method, path, operation as Json));
    }
  }
  const sections = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, operations]) => `<h2 id="${escapeHtml(tag)}">${escapeHtml(tag)}</h2>\n${operations.join('\n')}`)
    .join('\n');
  const toc = [...byTag.keys()]
    .sort()
    .map((tag) => `<a href="#${escapeHtml(tag)}">${escapeHtml(tag)}</a>`)
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(document.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}
h2{border-bottom:2px solid #ddd;margin-top:2.5rem;text-transform:capitalize}
.op{border:1px solid #e3e3e3;border-radius:6px;padding:.2rem 1rem;margin:1rem 0}
.op.deprecated{opacity:.7}
.method{display:inline-block;min-width:4.5rem;text-align:center;border-radius:4px;color:#fff;
  font-size:.8rem;padding:.1rem .4rem}
.get{background:#2b7bb9}.post{background:#3a9a4b}.put{background:#b9892b}
.patch{background:#8a5bb9}.delete{background:#b93a3a}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}
pre{background:#f6f6f6;padding:.6rem;overflow:auto;font-size:.85rem}
</style></head><body>
<h1>${escapeHtml(document.info.title)} <small>${escapeHtml(document.info.version)}</small></h1>
<p>${inlineMarkdown(document.info.description ?? '')}</p>
<p>Machine-readable: <a href="openapi.json">openapi.json</a></p>
<nav>${toc}</nav>
${sections}
</body></html>`;
}
