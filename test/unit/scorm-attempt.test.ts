import { describe, expect, it } from 'vitest';
import {
  cmiProblems,
  entryFor,
  formatTimespan,
  scoResult,
  timespanSeconds,
} from '../../shared/domain/scorm-attempt.ts';
import { openContentRequest, contentPath } from '../../shared/domain/content-token.ts';

describe('SCORM attempt rules', () => {
  it('reads and writes both timespan formats', () => {
    expect(timespanSeconds('scorm12', '0001:02:03.50')).toBe(3723.5);
    expect(timespanSeconds('scorm2004', 'PT1H2M3.5S')).toBe(3723.5);
    expect(timespanSeconds('scorm2004', 'P1D')).toBe(86_400);
    expect(timespanSeconds('scorm2004', 'PT')).toBeNull();
    expect(timespanSeconds('scorm12', '1:2:3')).toBeNull();
    expect(formatTimespan('scorm12', 3723.5)).toBe('0001:02:03.50');
    expect(formatTimespan('scorm2004', 65)).toBe('PT0H1M5S');
  });

  it('refuses values over the spec limits with the model error code, and unknown element names', () => {
    expect(cmiProblems('scorm12', { 'cmi.suspend_data': 'x'.repeat(4096) })).toEqual([]);
    expect(cmiProblems('scorm12', { 'cmi.suspend_data': 'x'.repeat(4097) })[0]).toMatchObject({ scorm_error: 405 });
    expect(cmiProblems('scorm2004', { 'cmi.suspend_data': 'x'.repeat(64_000) })).toEqual([]);
    expect(cmiProblems('scorm2004', { 'cmi.suspend_data': 'x'.repeat(64_001) })[0]).toMatchObject({ scorm_error: 407 });
    expect(cmiProblems('scorm2004', { 'window.alert': '1' })[0]).toMatchObject({ scorm_error: 401 });
  });

  it('1.2: the mastery score decides passed or failed over the reported status', () => {
    const sco = { mastery_score: 80 } as never;
    expect(scoResult('scorm12', { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '50' }, sco)).toMatchObject(
      {
        success_status: 'failed',
        satisfied: false,
      },
    );
    expect(
      scoResult('scorm12', { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.score.raw': '80' }, sco),
    ).toMatchObject({ success_status: 'passed', satisfied: true });
    expect(scoResult('scorm12', { 'cmi.core.lesson_status': 'completed' }, undefined).satisfied).toBe(true);
    expect(scoResult('scorm12', { 'cmi.core.lesson_status': 'browsed' }, undefined).satisfied).toBe(false);
  });

  it('2004: thresholds decide when known; a failed SCO is not satisfied', () => {
    const sco = {
      scaled_passing_score: 0.7,
      completion_threshold: { completed_by_measure: true, min_progress_measure: 0.5, progress_weight: 1 },
    } as never;
    expect(scoResult('scorm2004', { 'cmi.progress_measure': '0.6', 'cmi.score.scaled': '0.71' }, sco)).toMatchObject({
      completion_status: 'completed',
      success_status: 'passed',
      satisfied: true,
    });
    expect(
      scoResult('scorm2004', { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed' }, undefined),
    ).toMatchObject({ satisfied: false });
    expect(entryFor(undefined)).toBe('ab-initio');
    expect(entryFor({ exit: 'suspend', launched: true })).toBe('resume');
    expect(entryFor({ exit: '', launched: true })).toBe('');
  });
});

describe('content tokens', () => {
  it('open only their import, until they expire, and never a path out of the package', () => {
    const key = 'k'.repeat(40);
    const path = contentPath(key, { importid: 7, expires: 1000 }, 'a b/c.html');
    expect(openContentRequest(key, path, 999)).toEqual({ ok: true, importid: 7, path: 'a b/c.html' });
    expect(openContentRequest(key, path, 1001)).toMatchObject({ ok: false, status: 403 });
    expect(openContentRequest('x'.repeat(40), path, 999)).toMatchObject({ ok: false, status: 403 });
    expect(openContentRequest(key, path.replace('/c/7/', '/c/8/'), 999)).toMatchObject({ ok: false, status: 403 });
    expect(openContentRequest(key, path.replace('c.html', '..%2F..%2Fx'), 999)).toMatchObject({ status: 404 });
  });
});
