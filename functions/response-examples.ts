/**
 * Each group's documented success bodies, by `METHOD /path`: `<group>/<group>.response-examples.json`
 * (decision 177), attached to the groups by the route index (routes.ts) for the OpenAPI document and
 * the tests that check them. A group's routes file does not import its examples, so no function's
 * bundle carries them: a Lambda never serves them (the docs function serves the OpenAPI document
 * built at synth), and parsing them cost every cold start (decision 355).
 */
import type { RouteGroup } from '../shared/http/route.ts';
import acknowledgements from './acknowledgements/acknowledgements.response-examples.json' with { type: 'json' };
import apiTokens from './api-tokens/api-tokens.response-examples.json' with { type: 'json' };
import approvals from './approvals/approvals.response-examples.json' with { type: 'json' };
import audit from './audit/audit.response-examples.json' with { type: 'json' };
import auth from './auth/auth.response-examples.json' with { type: 'json' };
import comments from './comments/comments.response-examples.json' with { type: 'json' };
import courseAssignments from './course-assignments/course-assignments.response-examples.json' with { type: 'json' };
import courses from './courses/courses.response-examples.json' with { type: 'json' };
import docs from './docs/docs.response-examples.json' with { type: 'json' };
import externalCourses from './external-courses/external-courses.response-examples.json' with { type: 'json' };
import glossary from './glossary/glossary.response-examples.json' with { type: 'json' };
import guides from './guides/guides.response-examples.json' with { type: 'json' };
import media from './media/media.response-examples.json' with { type: 'json' };
import modules from './modules/modules.response-examples.json' with { type: 'json' };
import notices from './notices/notices.response-examples.json' with { type: 'json' };
import periodicReview from './periodic-review/periodic-review.response-examples.json' with { type: 'json' };
import qualifications from './qualifications/qualifications.response-examples.json' with { type: 'json' };
import quizImport from './quiz-import/quiz-import.response-examples.json' with { type: 'json' };
import quizzes from './quizzes/quizzes.response-examples.json' with { type: 'json' };
import releases from './releases/releases.response-examples.json' with { type: 'json' };
import search from './search/search.response-examples.json' with { type: 'json' };
import signoffs from './signoffs/signoffs.response-examples.json' with { type: 'json' };
import siteTransfer from './site-transfer/site-transfer.response-examples.json' with { type: 'json' };
import sso from './sso/sso.response-examples.json' with { type: 'json' };
import stepForms from './step-forms/step-forms.response-examples.json' with { type: 'json' };
import tags from './tags/tags.response-examples.json' with { type: 'json' };
import teams from './teams/teams.response-examples.json' with { type: 'json' };
import userGuides from './user-guides/user-guides.response-examples.json' with { type: 'json' };
import users from './users/users.response-examples.json' with { type: 'json' };
import viewHistory from './view-history/view-history.response-examples.json' with { type: 'json' };
import webhooks from './webhooks/webhooks.response-examples.json' with { type: 'json' };
import wikis from './wikis/wikis.response-examples.json' with { type: 'json' };
import workLog from './work-log/work-log.response-examples.json' with { type: 'json' };
import xapi from './xapi/xapi.response-examples.json' with { type: 'json' };

const RESPONSE_EXAMPLES: Record<string, Record<string, unknown>> = {
  acknowledgements,
  'api-tokens': apiTokens,
  approvals,
  audit,
  auth,
  comments,
  'course-assignments': courseAssignments,
  courses,
  docs,
  'external-courses': externalCourses,
  glossary,
  guides,
  media,
  modules,
  notices,
  'periodic-review': periodicReview,
  qualifications,
  'quiz-import': quizImport,
  quizzes,
  releases,
  search,
  signoffs,
  'site-transfer': siteTransfer,
  sso,
  'step-forms': stepForms,
  tags,
  teams,
  'user-guides': userGuides,
  users,
  'view-history': viewHistory,
  webhooks,
  wikis,
  'work-log': workLog,
  xapi,
};

/** The group with its examples file's bodies (a group without one is returned as it is). */
export function withResponseExamples(group: RouteGroup): RouteGroup {
  const responseExamples = RESPONSE_EXAMPLES[group.name];
  return responseExamples ? { ...group, responseExamples } : group;
}
