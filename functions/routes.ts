/**
 * The route index: every group's slice of the route table. The CDK API stack, the local
 * gateway, the OpenAPI document and the test matrix read this list.
 */
import type { RouteGroup } from '../shared/http/route.ts';

export const routeGroups: RouteGroup[] = [];
