/**
 * The outbox item and the stored event (shared/domain/events/stored-event.ts) are one shape: the
 * item is the event's fields under its keys, the event's entity kept as `subject`. An event written
 * by outboxPut reads back through outboxFromItem as the same StoredEvent; an item the schema
 * refuses (an unknown event name) is not read as one.
 */
import { describe, expect, it } from 'vitest';
import { outboxEventItemSchema, outboxFromItem, outboxKey, outboxPut } from '../../shared/db/entities/outbox.ts';
import { domainEvent } from '../../shared/domain/events/catalogue.ts';
import { storedEventSchema } from '../../shared/domain/events/stored-event.ts';

const itemOf = (write: ReturnType<typeof outboxPut>) =>
  (write.item as { Put: { Item: Record<string, unknown> } }).Put.Item;

describe('the outbox item', () => {
  it('holds every field of the stored event, the entity as subject, and reads back as the same event', () => {
    const item = itemOf(outboxPut(domainEvent('user.created', 'USER#12', { userid: 12, username: 'ada' })));
    expect(item.entity).toBe('OutboxEvent');
    expect(item.subject).toBe('USER#12');
    const event = outboxFromItem(item);
    expect(storedEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({ name: 'user.created', entity: 'USER#12', data: { userid: 12, username: 'ada' } });
    expect(outboxKey(event)).toEqual({ pk: item.pk, sk: item.sk });
    const eventFields = Object.keys(storedEventSchema.shape).filter((field) => field !== 'entity');
    expect(Object.keys(outboxEventItemSchema.shape)).toEqual(expect.arrayContaining([...eventFields, 'subject']));
  });

  it('keeps a ping’s webhook and refuses an item of an unknown event name', () => {
    const ping = itemOf(outboxPut(domainEvent('ping', 'WEBHOOK#3', { webhookid: 3 }, { target_webhookid: 3 })));
    expect(outboxFromItem(ping).target_webhookid).toBe(3);
    expect(() => outboxFromItem({ ...ping, name: 'user.renamed' })).toThrow();
  });
});
