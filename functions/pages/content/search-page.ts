/**
 * The search page (`/Search?query=…`, the real service's path; decision 298): the form with the
 * API's filter, language and paging, then the results GET /search/{query} gives the same reader,
 * each with the words searched for marked. Marking works on text, never on HTML: the text is cut
 * at the matches and every piece goes through `html`'s escaping, the <mark>s are the template's.
 */
import type { SearchResults } from '../../../shared/views/search-views.ts';
import { html, type SafeHtml } from '../html/html.ts';

/** The filters the page offers, as GET /search/{query} names them. */
export const PAGE_FILTERS = [
  { value: '', label: 'Everything' },
  { value: 'guide', label: 'Guides' },
  { value: 'teardown', label: 'Teardowns' },
  { value: 'category', label: 'Categories' },
  { value: 'wiki', label: 'Wiki pages' },
] as const;
export type PageFilter = (typeof PAGE_FILTERS)[number]['value'];

/** Shown of a result's summary before it is cut. */
const SNIPPET_CHARS = 280;
/** At most this many words are marked (a long query marks its first ones). */
const MARKED_TERMS = 12;

/** The words of a query worth marking: letters and digits, two characters or more. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  return [...new Set(words)].slice(0, MARKED_TERMS);
}

/** The text, escaped, with every occurrence of a term (case-insensitive) in <mark>. */
export function highlight(text: string, terms: readonly string[]): SafeHtml {
  if (terms.length === 0 || text === '') return html`${text}`;
  // Longest first, so that a term that contains another wins; every term escaped for the pattern.
  const pattern = [...terms]
    .sort((a, b) => b.length - a.length)
    .map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  const parts = text.split(new RegExp(`(${pattern})`, 'giu'));
  return html`${parts.map((part, index) => (index % 2 === 1 ? html`<mark>${part}</mark>` : html`${part}`))}`;
}

function snippet(text: string): string {
  return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS).trimEnd()}…` : text;
}

export interface SearchPageInput {
  query: string;
  filter: PageFilter;
  langid: string;
  offset: number;
  limit: number;
  /** The site's languages: a choice only when there is more than one. */
  languages: readonly string[];
}

/** `/Search?…` for these inputs, another page of them. */
export function searchHref(input: SearchPageInput, offset: number): string {
  const query = new URLSearchParams({ query: input.query });
  if (input.filter) query.set('filter', input.filter);
  if (input.languages.length > 1) query.set('langid', input.langid);
  if (input.limit !== 20) query.set('limit', String(input.limit));
  if (offset > 0) query.set('offset', String(offset));
  return `/Search?${query}`;
}

function form(input: SearchPageInput): SafeHtml {
  const selected = (yes: boolean) => (yes ? html` selected` : '');
  const filters = PAGE_FILTERS.map(
    (option) =>
      html`<option value="${option.value}"${selected(option.value === input.filter)}>${option.label}</option>`,
  );
  const languages =
    input.languages.length > 1
      ? html`<label>Language <select name="langid">${input.languages.map(
          (language) => html`<option value="${language}"${selected(language === input.langid)}>${language}</option>`,
        )}</select></label>`
      : '';
  return html`<form class="filters" action="/Search" method="get" role="search" aria-label="Search this site">
<label>Search for <input type="search" name="query" value="${input.query}" maxlength="200"></label>
<label>Show <select name="filter">${filters}</select></label>
${languages}<button type="submit">Search</button>
</form>`;
}

function result(entry: SearchResults['results'][number], terms: readonly string[]): SafeHtml {
  const path = new URL(entry.url).pathname;
  if (entry.dataType === 'guide') {
    return html`<li><a href="${path}">${highlight(entry.title, terms)}</a>
<p class="meta">Guide · ${entry.category}${entry.difficulty ? ` · ${entry.difficulty}` : ''}</p>
${entry.summary ? html`<p>${highlight(snippet(entry.summary), terms)}</p>` : ''}</li>`;
  }
  const kind = entry.namespace === 'CATEGORY' ? 'Category' : 'Page';
  const text = entry.summary || entry.text;
  return html`<li><a href="${path}">${highlight(entry.display_title || entry.title, terms)}</a>
<p class="meta">${kind}</p>
${text ? html`<p>${highlight(snippet(text), terms)}</p>` : ''}</li>`;
}

/** The page's content: the form, then (when something was asked) the count, results and paging. */
export function searchContent(input: SearchPageInput, results: SearchResults | undefined): SafeHtml {
  const heading = input.query ? html`<h1>Search results for “${input.query}”</h1>` : html`<h1>Search</h1>`;
  if (!results) return html`${heading}${form(input)}<p>Type what you are looking for: a guide, a part, a task.</p>`;
  const terms = queryTerms(input.query);
  const first = results.offset + 1;
  const last = results.offset + results.results.length;
  const count =
    results.totalResults === 0
      ? html`<p role="status">Nothing found. Try fewer or other words, or show everything.</p>`
      : html`<p role="status">Results ${first}–${last} of ${results.totalResults}</p>`;
  const previous =
    results.offset > 0
      ? html`<a href="${searchHref(input, Math.max(0, results.offset - results.limit))}" rel="prev">Previous page</a>`
      : '';
  const next = results.moreResults
    ? html`<a href="${searchHref(input, results.offset + results.limit)}" rel="next">Next page</a>`
    : '';
  const list = results.results.map((entry) => result(entry, terms));
  return html`${heading}${form(input)}${count}
${list.length > 0 ? html`<ol class="results" start="${first}">${list}</ol>` : ''}
${previous || next ? html`<nav class="pager" aria-label="Result pages">${previous}${next}</nav>` : ''}`;
}
