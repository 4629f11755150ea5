/** Vitest setup file: every fast-check property runs with the seed of test/support/property.ts. */
import fc from 'fast-check';
import { propertyRuns, propertySeed } from './property.ts';

const seed = propertySeed();
// Properties without their own numRuns get STEPWISE_PROPERTY_RUNS too (fast-check's default is 100).
const runs = process.env.STEPWISE_PROPERTY_RUNS ? { numRuns: propertyRuns(100) } : {};
fc.configureGlobal({ ...fc.readConfigureGlobal(), ...(seed === undefined ? {} : { seed }), ...runs });
