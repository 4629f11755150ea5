/**
 * course_assignment.overdue is time-driven: nothing is written when a due date passes. It is
 * emitted the first time a stored row is observed past its due date and not completed (report
 * and list reads go through currentRows), through emitOnce: a marker per assignment, trainee and
 * due date is created with attribute_not_exists in the event's transaction, so it is emitted
 * once however many readers see it. Known markers are read first (one BatchGet a page) so a
 * page of overdue rows costs no writes after the first time.
 */
import { emitOnce, emittedMarkers } from '../db/entities/outbox.ts';
import type { TrainingRowRecord } from '../db/entities/training-row.ts';
import { domainEvent } from '../domain/events/catalogue.ts';
import { rowEntity } from '../domain/events/training-events.ts';

const markerOf = (row: TrainingRowRecord) =>
  `course_assignment.overdue#${row.course_assignmentid}#${row.userid}#${row.due_date}`;

export async function emitOverdueEvents(rows: TrainingRowRecord[], now: number): Promise<void> {
  const overdue = rows.filter(
    (row) => row.active && row.due_date !== null && row.due_date <= now && row.status !== 'completed',
  );
  if (overdue.length === 0) return;
  const known = await emittedMarkers(overdue.map(markerOf));
  for (const row of overdue) {
    if (known.has(markerOf(row))) continue;
    await emitOnce(
      markerOf(row),
      domainEvent('course_assignment.overdue', rowEntity(row), {
        course_assignmentid: row.course_assignmentid,
        wikiid: row.wikiid,
        userid: row.userid,
        due_date: row.due_date!,
      }),
    );
  }
}
