/** The kinds of document compliance records name, and the audit chain each document has. */
export const DOCTYPES = ['guide', 'wiki'] as const;
export type Doctype = (typeof DOCTYPES)[number];

/** The audit chain of a document: GUIDE#<id> or WIKI#<id>. */
export function documentSubject(doctype: Doctype, docid: number): string {
  return `${doctype.toUpperCase()}#${docid}`;
}

/** The audit chain of a user. */
export function userSubject(userid: number): string {
  return `USER#${userid}`;
}
