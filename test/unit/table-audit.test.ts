/** The teardown audit's checks (test/support/table-audit.ts); global-setup runs it over the whole test table. */
import { describe, expect, it } from 'vitest';
import { auditItem, auditReport } from '../support/table-audit.ts';

const counter = { pk: 'COUNTER#guide', sk: 'COUNTER', value: 3 };

describe('table audit', () => {
  it('passes an item of a registered shape that matches its schema', () => {
    expect(auditItem(counter)).toBeUndefined();
  });

  it('names an item whose key no registered entity has', () => {
    expect(auditItem({ pk: 'GIZMO#1', sk: 'GIZMO', entity: 'Gizmo' })).toBe('a key shape no registered entity has');
    expect(auditItem({ pk: 1, sk: 'COUNTER' })).toBe('no string pk and sk');
  });

  it('names the entity and the first wrong field of an item that breaks its schema', () => {
    expect(auditItem({ ...counter, value: 'three' })).toBe('Counter: value: expected number, got string');
    expect(auditItem({ ...counter, extra: true })).toBe('Counter: item: attributes it never writes: extra');
  });

  it('reports the count and at most the given number of findings', () => {
    const findings = Array.from({ length: 25 }, (_, index) => ({ key: `K#${index} / S`, problem: 'broken' }));
    const report = auditReport({ scanned: 100, findings }, 20);
    expect(report).toContain('25 of 100 items');
    expect(report).toContain('K#19 / S: broken');
    expect(report).not.toContain('K#20 / S');
    expect(report).toContain('... and 5 more');
  });
});
