import { afterEach, describe, expect, it, vi } from 'vitest';

describe('request metrics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('emits one EMF record per request with the group dimension and error counts', async () => {
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const { recordRequest } = await import('../../shared/observability/metrics.ts');
    recordRequest('users', 404, 12);
    const record = JSON.parse(lines.find((line) => line.includes('"_aws"'))!);
    expect(record.group).toBe('users');
    expect(record.Requests).toBe(1);
    expect(record.Latency).toBe(12);
    expect(record.ClientErrors).toBe(1);
    expect(record._aws.CloudWatchMetrics[0].Namespace).toBe('Stepwise');
  });
});
