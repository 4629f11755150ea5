/** Where the editor pages are (editor.routes.ts): the content pages link them. */

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
