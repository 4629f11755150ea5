/**
 * The route index: every group's slice of the route table. The CDK API stack, the local
 * gateway, the OpenAPI document and the test matrix read this list. The `$default` route
 * (functions/fallback) is not a group: it serves whatever no route matched.
 */
import type { RouteGroup } from '../shared/http/route.ts';
import { withResponseExamples } from './response-examples.ts';
import { authGroup } from './auth/auth.routes.ts';
import { usersGroup } from './users/users.routes.ts';
import { teamsGroup } from './teams/teams.routes.ts';
import { docsGroup } from './docs/docs.routes.ts';
import { wikisGroup } from './wikis/wikis.routes.ts';
import { glossaryGroup } from './glossary/glossary.routes.ts';
import { commentsGroup } from './comments/comments.routes.ts';
import { tagsGroup } from './tags/tags.routes.ts';
import { viewHistoryGroup } from './view-history/view-history.routes.ts';
import { guidesGroup } from './guides/guides.routes.ts';
import { releasesGroup } from './releases/releases.routes.ts';
import { userGuidesGroup } from './user-guides/user-guides.routes.ts';
import { mediaGroup } from './media/media.routes.ts';
import { modulesGroup } from './modules/modules.routes.ts';
import { periodicReviewGroup } from './periodic-review/periodic-review.routes.ts';
import { approvalsGroup } from './approvals/approvals.routes.ts';
import { auditGroup } from './audit/audit.routes.ts';
import { stepFormsGroup } from './step-forms/step-forms.routes.ts';
import { workLogGroup } from './work-log/work-log.routes.ts';
import { quizzesGroup } from './quizzes/quizzes.routes.ts';
import { quizImportGroup } from './quiz-import/quiz-import.routes.ts';
import { coursesGroup } from './courses/courses.routes.ts';
import { courseAssignmentsGroup } from './course-assignments/course-assignments.routes.ts';
import { signoffsGroup } from './signoffs/signoffs.routes.ts';
import { webhooksGroup } from './webhooks/webhooks.routes.ts';
import { siteTransferGroup } from './site-transfer/site-transfer.routes.ts';
import { pagesGroup } from './pages/pages.routes.ts';
import { searchGroup } from './search/search.routes.ts';
import { acknowledgementsGroup } from './acknowledgements/acknowledgements.routes.ts';
import { qualificationsGroup } from './qualifications/qualifications.routes.ts';
import { noticesGroup } from './notices/notices.routes.ts';
import { apiTokensGroup } from './api-tokens/api-tokens.routes.ts';
import { scimGroup } from './scim/scim.routes.ts';
import { externalCoursesGroup } from './external-courses/external-courses.routes.ts';
import { ssoGroup } from './sso/sso.routes.ts';
import { xapiGroup } from './xapi/xapi.routes.ts';

const groups: RouteGroup[] = [
  // platform
  authGroup,
  usersGroup,
  teamsGroup,
  docsGroup,
  // content
  guidesGroup,
  releasesGroup,
  userGuidesGroup,
  wikisGroup,
  tagsGroup,
  commentsGroup,
  viewHistoryGroup,
  glossaryGroup,
  searchGroup,
  // media and training modules
  mediaGroup,
  modulesGroup,
  // training
  coursesGroup,
  courseAssignmentsGroup,
  signoffsGroup,
  acknowledgementsGroup,
  qualificationsGroup,
  noticesGroup,
  quizzesGroup,
  quizImportGroup,
  // data capture
  stepFormsGroup,
  workLogGroup,
  // compliance
  periodicReviewGroup,
  approvalsGroup,
  auditGroup,
  // integrations
  webhooksGroup,
  apiTokensGroup,
  scimGroup,
  externalCoursesGroup,
  // site backup, restore and moves (beyond the spec)
  siteTransferGroup,
  // the site's own LRS at /xapi (and its credentials under /admin)
  xapiGroup,
  // paths of the site outside /api/2.0
  pagesGroup,
  // company sign-in: identity providers, remote login, OIDC, SAML
  ssoGroup,
];

/** The groups with their documented success bodies (functions/response-examples.ts). */
export const routeGroups: RouteGroup[] = groups.map(withResponseExamples);
