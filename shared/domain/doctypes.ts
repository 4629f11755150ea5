/** The kinds of document compliance records name (their audit chains: auditSubject.document, shared/db/audit.ts). */
export const DOCTYPES = ['guide', 'wiki'] as const;
export type Doctype = (typeof DOCTYPES)[number];
