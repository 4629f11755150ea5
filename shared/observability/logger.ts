/** Structured JSON logs (Powertools), one logger for the whole process. */
import { Logger } from '@aws-lambda-powertools/logger';
import { config } from '../config.ts';

let logger: Logger | undefined;

export function log(): Logger {
  logger ??= new Logger({ serviceName: 'stepwise', logLevel: config().LOG_LEVEL });
  return logger;
}
