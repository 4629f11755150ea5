import { createFallback, loadManifest } from './fallback.ts';
import { invokeGroupFunction } from './lambda-invoker.ts';

export const handler = createFallback(loadManifest(), invokeGroupFunction);
