/**
 * The Powertools tracer (X-Ray), loaded only when tracing is on (shared/observability/tracing.ts):
 * `#xray-tracer` in package.json "imports", so a deployed function carries it as a side bundle
 * (decision 155) and a cold start with tracing off does not even parse it (~150 ms of import
 * here, most of it aws-xray-sdk-core).
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';

export const tracer = new Tracer({ serviceName: 'stepwise' });

/** Every AWS SDK v3 client the shared factories create gets a subsegment per call. */
export function captureClient<T>(client: T): T {
  return tracer.captureAWSv3Client(client as never) as T;
}

/** The handler's subsegment (cold start and service annotations, errors as metadata). */
export const handlerMiddleware = captureLambdaHandler(tracer, { captureResponse: false });
