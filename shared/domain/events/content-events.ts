/** Builders of content and compliance events (no I/O). */
import { domainEvent, type DomainEvent } from './catalogue.ts';

/** A document's releases and approvals: events of one document keep their order. */
export const documentEntity = (doctype: string, docid: number) => `DOCUMENT#${doctype}#${docid}`;

export function releasedEvent(release: {
  releaseid: number;
  doctype: 'guide' | 'wiki';
  docid: number;
  revisionid: number | null;
  version: string | null;
}): DomainEvent {
  const common = { releaseid: release.releaseid, revisionid: release.revisionid, version: release.version };
  return release.doctype === 'guide'
    ? domainEvent('guide.released', documentEntity('guide', release.docid), { guideid: release.docid, ...common })
    : domainEvent('wiki.released', documentEntity('wiki', release.docid), { wikiid: release.docid, ...common });
}

interface RequestState {
  approval_requestid: number;
  doctype: string;
  docid: number;
  revisionid: number;
  requested_by: number;
  status: string;
  signatures: Array<{ userid: number; meaning: string }>;
}

/** approval.requested for a new request. */
export function requestCreatedEvents(request: RequestState): DomainEvent[] {
  return [
    domainEvent('approval.requested', documentEntity(request.doctype, request.docid), {
      approval_requestid: request.approval_requestid,
      doctype: request.doctype,
      docid: request.docid,
      revisionid: request.revisionid,
      requested_by: request.requested_by,
    }),
  ];
}

/** approval.signed for each new signature, then approval.approved / approval.rejected when the request ends so. */
export function requestChangedEvents(before: RequestState, after: RequestState): DomainEvent[] {
  const entity = documentEntity(after.doctype, after.docid);
  const ref = { approval_requestid: after.approval_requestid, doctype: after.doctype, docid: after.docid };
  const events: DomainEvent[] = after.signatures
    .slice(before.signatures.length)
    .map((signature) =>
      domainEvent('approval.signed', entity, { ...ref, userid: signature.userid, decision: signature.meaning }),
    );
  if (before.status !== after.status && after.status === 'approved')
    events.push(domainEvent('approval.approved', entity, { ...ref, revisionid: after.revisionid }));
  if (before.status !== after.status && after.status === 'rejected')
    events.push(domainEvent('approval.rejected', entity, { ...ref, revisionid: after.revisionid }));
  return events;
}
