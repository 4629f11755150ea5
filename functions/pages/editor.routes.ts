/**
 * The editor pages (issue 42 item 1, decision 294): a guide's editor at `/Edit/Guide/<guideid>`
 * and a new guide's at `/Edit/Guide/new?category=<title>`. The server decides who sees them (the
 * API's own rule: `canEditGuide` for a guide, the Author role for a new one) and renders a shell;
 * the client script (functions/pages/client) builds the form in it and writes through the same
 * /api/2.0 routes and their checks, with the session's token read from GET /api/2.0/user.
 */
import * as z from 'zod/mini';
import { config } from '../../shared/config.ts';
import { type Caller, hasRole } from '../../shared/domain/caller.ts';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { assertCanEditGuide } from '../../shared/content/guide-access.ts';
import { requirePage } from '../../shared/content/wiki-pages.ts';
import { route, type RouteDef } from '../../shared/http/route.ts';
import { html, type SafeHtml } from './html/html.ts';
import { asPage, htmlReply } from './html/page-reply.ts';

/** The editor page of a guide: where the guide page's Edit link points. */
export function guideEditorPath(guideid: number | 'new', category?: string): string {
  const query = category === undefined ? '' : `?category=${encodeURIComponent(category)}`;
  return `/Edit/Guide/${guideid}${query}`;
}

/** The namespaces whose pages the wiki editor edits (COURSE pages are the courses endpoints'). */
export const EDITABLE_NAMESPACES = ['WIKI', 'CATEGORY', 'INFO', 'ITEM'] as const;
export type EditableNamespace = (typeof EDITABLE_NAMESPACES)[number];

/** The editor page of a wiki or category page. */
export function wikiEditorPath(namespace: EditableNamespace, title: string): string {
  return `/Edit/Wiki/${namespace}/${encodeURIComponent(title)}`;
}

/** The shell the client fills: what to edit in data attributes, and a word for a browser without script. */
function editorShell(attributes: { guideid?: number; category?: string }): SafeHtml {
  const types = config().STEPWISE_GUIDE_TYPES.join(',');
  return html`<div id="guide-editor" class="editor" data-editor="guide" data-guideid="${attributes.guideid ?? ''}"
 data-category="${attributes.category ?? ''}" data-guide-types="${types}">
<p class="editor-noscript">The editor needs JavaScript. Guides can also be written through the
<a href="/api/2.0/doc">API</a>.</p>
</div>`;
}

function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  return caller;
}

export const editorRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/Edit/Wiki/{namespace}/{title}',
    site: true,
    page: true,
    auth: 'public',
    plusAsSpace: true,
    summary: 'The wiki editor of a WIKI, CATEGORY, INFO or ITEM page, with a live preview (Authors and Admins)',
    params: z.object({
      namespace: z.enum(EDITABLE_NAMESPACES),
      title: z.string().check(z.minLength(1), z.maxLength(512)),
    }),
    handler: ({ caller, params }) => {
      const path = wikiEditorPath(params.namespace, params.title);
      return asPage(caller, path, async () => {
        // PATCH /wikis/{namespace}/{title}'s rule; a reader without it gets the 404 page.
        if (!hasRole(signedIn(caller), 'Author')) throw new ForbiddenError('Only Authors edit pages');
        const wiki = await requirePage(params.namespace, params.title);
        return htmlReply(200, {
          title: `Edit ${wiki.display_title || wiki.title}`,
          caller,
          path,
          client: true,
          content: html`<h1>Edit page: ${wiki.display_title || wiki.title}</h1>
<div id="wiki-editor" class="editor" data-editor="wiki" data-namespace="${wiki.namespace}" data-title="${wiki.title}">
<p class="editor-noscript">The editor needs JavaScript. Pages can also be edited through the
<a href="/api/2.0/doc">API</a>.</p>
</div>`,
        });
      });
    },
  }),
  route({
    method: 'GET',
    path: '/Edit/Guide/{guideid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "The guide editor: a guide's (those who may edit it) or a new guide's (`new`, Authors and Admins)",
    params: z.object({ guideid: z.string().check(z.regex(/^(new|[1-9]\d{0,14})$/)) }),
    query: z.object({ category: z.optional(z.string().check(z.maxLength(512))) }),
    queryExample: { category: 'Printers' },
    handler: ({ caller, params, query }) => {
      const isNew = params.guideid === 'new';
      const path = isNew ? guideEditorPath('new', query.category) : guideEditorPath(Number(params.guideid));
      return asPage(caller, path, async () => {
        const editor = signedIn(caller);
        if (isNew) {
          // The API's POST /guides rule; a reader without it gets the 404 page, as for any page.
          if (!hasRole(editor, 'Author')) throw new ForbiddenError('Only Authors write guides');
          return htmlReply(200, {
            title: 'New guide',
            caller,
            path,
            client: true,
            content: html`<h1>New guide</h1>
${editorShell({ category: query.category ?? '' })}`,
          });
        }
        const guide = await assertCanEditGuide(editor, Number(params.guideid));
        return htmlReply(200, {
          title: `Edit ${guide.title}`,
          caller,
          path,
          client: true,
          content: html`<h1>Edit guide: ${guide.title}</h1>
${editorShell({ guideid: guide.guideid })}`,
        });
      });
    },
  }),
];
