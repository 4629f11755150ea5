/**
 * The editor pages' handlers (editor.routes.ts declares their routes; decision 294), evaluated when
 * an editor page is first asked for (`lazyService`, decision 349): who sees them (the API's own
 * rule) and the shell the client script fills.
 */
import { config } from '../../shared/config.ts';
import { type Caller, hasRole } from '../../shared/domain/caller.ts';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { assertCanEditGuide } from '../../shared/content/guide-access.ts';
import { requirePage } from '../../shared/content/wiki-pages.ts';
import { type EditableNamespace, guideEditorPath, wikiEditorPath } from './editor-paths.ts';
import { html, type SafeHtml } from './html/html.ts';
import { asPage, htmlReply } from './html/page-reply.ts';

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

/** The wiki editor of a WIKI, CATEGORY, INFO or ITEM page (Authors and Admins). */
export function wikiEditorPage(caller: Caller | null, params: { namespace: EditableNamespace; title: string }) {
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
}

/** The guide editor: a guide's (those who may edit it) or a new guide's (`new`, Authors and Admins). */
export function guideEditorPage(caller: Caller | null, params: { guideid: string }, query: { category?: string }) {
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
}
