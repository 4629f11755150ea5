/**
 * The editor pages (issue 42 item 1, decision 294): a guide's editor at `/Edit/Guide/<guideid>`
 * and a new guide's at `/Edit/Guide/new?category=<title>`. The server decides who sees them (the
 * API's own rule: `canEditGuide` for a guide, the Author role for a new one) and renders a shell
 * (editor.pages.ts, evaluated on first use: decision 349); the client script (functions/pages/client)
 * builds the form in it and writes through the same /api/2.0 routes and their checks, with the
 * session's token read from GET /api/2.0/user.
 */
import * as z from 'zod/mini';
import { lazyService } from '../../shared/http/lazy-service.ts';
import { route, type RouteDef } from '../../shared/http/route.ts';
import { EDITABLE_NAMESPACES } from './editor-paths.ts';
import type * as EditorPages from './editor.pages.ts';

const pages = lazyService<typeof EditorPages>(() => import('./editor.pages.ts'));

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
    handler: ({ caller, params }) => pages.wikiEditorPage(caller, params),
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
    handler: ({ caller, params, query }) => pages.guideEditorPage(caller, params, query),
  }),
];
