/**
 * acknowledgement.overdue is time-driven (decision 100): emitted the first time a pending
 * acknowledgement is observed past its due date (its lists and a release's signatures are read),
 * once, through a marker per release and person (emitOnce).
 */
import { emitOnce, emittedMarkers } from '../db/entities/outbox.ts';
import type { AcknowledgementRecord } from '../db/entities/acknowledgement.ts';
import { domainEvent } from '../domain/events/catalogue.ts';
import { acknowledgementState } from '../domain/competency.ts';

const markerOf = (ack: AcknowledgementRecord) => `acknowledgement.overdue#${ack.releaseid}#${ack.userid}`;

export async function emitAcknowledgementOverdue(acks: AcknowledgementRecord[], now: number): Promise<void> {
  const overdue = acks.filter((ack) => acknowledgementState(ack, now) === 'overdue');
  if (overdue.length === 0) return;
  const known = await emittedMarkers(overdue.map(markerOf));
  for (const ack of overdue) {
    if (known.has(markerOf(ack))) continue;
    await emitOnce(
      markerOf(ack),
      domainEvent('acknowledgement.overdue', `ACK#${ack.releaseid}#${ack.userid}`, {
        releaseid: ack.releaseid,
        doctype: ack.doctype,
        docid: ack.docid,
        userid: ack.userid,
        due_date: ack.due_date,
      }),
    );
  }
}
