/**
 * Request metrics in CloudWatch Embedded Metric Format (Powertools): count, latency and
 * errors per route group, flushed after every invocation. Locally they are switched off
 * (POWERTOOLS_METRICS_DISABLED), so logs stay readable.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

let metrics: Metrics | undefined;

function instance(): Metrics {
  // The deployment names the namespace (its stack prefix) through POWERTOOLS_METRICS_NAMESPACE.
  metrics ??= new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'Stepwise',
    serviceName: 'stepwise',
  });
  return metrics;
}

export function recordRequest(group: string, status: number, durationMs: number): void {
  if (process.env.POWERTOOLS_METRICS_DISABLED === 'true') return;
  const m = instance();
  m.addDimension('group', group);
  m.addMetric('Requests', MetricUnit.Count, 1);
  m.addMetric('Latency', MetricUnit.Milliseconds, durationMs);
  if (status >= 500) m.addMetric('ServerErrors', MetricUnit.Count, 1);
  else if (status >= 400) m.addMetric('ClientErrors', MetricUnit.Count, 1);
  m.publishStoredMetrics();
}
