/**
 * Which stack deploys each endpoint group. CloudFormation refuses a stack of more than 500
 * resources, and one group costs about 8 (function, role, policy, log group, two alarms,
 * integration, invoke permission) plus one per route; one stack for the whole API reached 473
 * (decision 186). A group lives in exactly one area for good: moving it to another area
 * deletes and re-creates its function and routes on the next deploy.
 */
export const API_AREAS = {
  Content: [
    'guides',
    'releases',
    'wikis',
    'media',
    'tags',
    'comments',
    'glossary',
    'view-history',
    'user-guides',
    'pages',
    'search',
  ],
  Training: [
    'courses',
    'course-assignments',
    'signoffs',
    'quizzes',
    'quiz-import',
    'modules',
    'periodic-review',
    'approvals',
    'acknowledgements',
    'qualifications',
    'notices',
    'external-courses',
  ],
  Accounts: ['auth', 'users', 'teams', 'audit', 'webhooks', 'site-transfer', 'docs', 'api-tokens', 'scim', 'sso'],
  Capture: ['step-forms', 'work-log', 'xapi'],
} as const satisfies Record<string, readonly string[]>;

/** Groups no area names (the infra tests' fixture groups, a group not yet placed). */
export const UNPLACED_AREA = 'Other';

/** A stack past this many resources fails the infra tests, leaving room below CloudFormation's 500. */
export const MAX_STACK_RESOURCES = 450;

export function areaOfGroup(groupName: string): string {
  for (const [area, groups] of Object.entries(API_AREAS)) {
    if ((groups as readonly string[]).includes(groupName)) return area;
  }
  return UNPLACED_AREA;
}
