/**
 * The body of a webhook delivery. Every event comes in the envelope of the real service's
 * "Course Stage Completed" webhook (reference §3.28): {siteName, siteDomain, title,
 * description, data}. course_stage.completed's `data` is exactly §3.28's model
 * {course_stageid, docid, doctype, title, userid, doc_completion}; other events carry their
 * own `data` (docs/events.md). The event's name travels in the X-Stepwise-Event header.
 */
import { EVENT_TITLES } from './catalogue.ts';
import type { StoredEvent } from './stored-event.ts';

export interface Site {
  name: string;
  url: string;
}

function eventData(record: StoredEvent): Record<string, unknown> {
  if (record.name === 'course_stage.completed') {
    const { course_stageid, docid, doctype, title, userid, doc_completion } = record.data;
    return { course_stageid, docid, doctype, title, userid, doc_completion };
  }
  return record.data;
}

export function deliveryBody(record: StoredEvent, site: Site): string {
  const { title, description } = EVENT_TITLES[record.name];
  return JSON.stringify({
    siteName: site.name,
    siteDomain: new URL(site.url).host,
    title,
    description,
    data: eventData(record),
  });
}
