/**
 * Users: lookups, search, the caller's own record, profile edits, badges, flags and bulk
 * creation. (Favorites, guides and completions of users arrive with the content issue.)
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { userSummarySchema } from '../../shared/views/common-schemas.ts';
import {
  createdByEmailsSchema,
  uniqueUsernameSuggestionSchema,
  userNameSchema,
  userProfileSchema,
  userSelfMaybeWithTokenSchema,
} from '../../shared/views/user-views.ts';
import { badgeSchema } from '../../shared/views/badge-views.ts';
import { createByEmailsBody, userListQuery, userPatchBody } from './users.schemas.ts';
import * as users from './users.service.ts';
import { accountActor } from '../../shared/accounts/account-authority.ts';

const pageQuery = z.object(pagination);
const searchParams = z.object({ search: z.string().check(z.minLength(1), z.maxLength(100)) });

export const usersGroup = defineGroup({
  name: 'users',
  access: { table: 'readwrite', sendMail: true },
  routes: [
    route({
      method: 'GET',
      path: '/users',
      auth: 'user',
      summary: 'List users (summary form), ordered by userid',
      query: userListQuery,
      response: z.array(userSummarySchema),
      handler: ({ caller, query }) => users.list(caller, query),
    }),
    route({
      method: 'GET',
      path: '/users/search/{search}',
      auth: 'user',
      summary: 'Find users by the prefix of any word of their name or unique_username',
      params: searchParams,
      query: pageQuery,
      response: z.array(userSummarySchema),
      handler: ({ caller, params, query }) => users.search(caller, params.search, query),
    }),
    route({
      method: 'GET',
      path: '/users/searchnames/{search}',
      auth: 'user',
      deprecated: true,
      summary: 'Deprecated name search: ids and names only (use /users/search/{search})',
      params: searchParams,
      query: pageQuery,
      response: z.array(userNameSchema),
      handler: ({ params, query }) => users.searchNames(params.search, query),
    }),
    route({
      method: 'GET',
      path: '/users/{userid}',
      auth: 'user',
      summary: 'A user profile; email and identity fields only for the user and Admins',
      params: idParams('userid'),
      response: userProfileSchema,
      handler: ({ caller, params }) => users.profile(caller, params.userid),
    }),
    route({
      method: 'GET',
      path: '/users/sso/{sso_userid}',
      auth: 'admin',
      summary: 'The user with this single-sign-on id (Admins)',
      params: z.object({ sso_userid: z.string().check(z.minLength(1), z.maxLength(200)) }),
      response: userProfileSchema,
      handler: ({ params }) => users.findBy('SSO', params.sso_userid),
    }),
    route({
      method: 'GET',
      path: '/users/email/{email}',
      auth: 'admin',
      summary: 'The user with this email address (Admins)',
      params: z.object({ email: z.string().check(z.minLength(3), z.maxLength(254)) }),
      response: userProfileSchema,
      handler: ({ params }) => users.findBy('EMAIL', params.email),
    }),
    route({
      method: 'GET',
      path: '/users/employee_id/{employee_id}',
      auth: 'admin',
      summary: 'The user with this employee id (Admins)',
      params: z.object({ employee_id: z.string().check(z.minLength(1), z.maxLength(100)) }),
      response: userProfileSchema,
      handler: ({ params }) => users.findBy('EMPLOYEE_ID', params.employee_id),
    }),
    route({
      method: 'GET',
      path: '/users/{userid}/badges',
      auth: 'user',
      summary: 'Badges a user earned',
      params: idParams('userid'),
      response: z.array(badgeSchema),
      handler: ({ params }) => users.badges(params.userid),
    }),
    route({
      method: 'GET',
      path: '/user',
      auth: 'user',
      // Single sign-on ends here: the apps' web view holds the session cookie and reads authToken.
      sessionCookie: true,
      summary: 'The signed-in user (self form)',
      description:
        "Also authenticated by the site's session cookie (the only API route that is, docs/sessions.md): " +
        "then the answer carries `authToken`, the session's token, as the apps finish single sign-on.",
      response: userSelfMaybeWithTokenSchema,
      handler: async ({ caller, auth }) => {
        const self = await users.self(caller);
        return auth.sessionToken ? { ...self, authToken: auth.sessionToken } : self;
      },
    }),
    route({
      method: 'GET',
      path: '/user/badges',
      auth: 'user',
      summary: 'Badges the signed-in user earned',
      response: z.array(badgeSchema),
      handler: ({ caller }) => users.badges(caller.userid),
    }),
    route({
      method: 'GET',
      path: '/user/flags',
      auth: 'user',
      summary: 'Feature flags in force for the signed-in user',
      response: z.array(z.string()),
      handler: ({ caller }) => users.flags(caller),
    }),
    route({
      method: 'PATCH',
      path: '/users/{userid}',
      auth: 'user',
      summary: 'Edit a profile (the user or an Admin; identity, role and flag fields Admins only)',
      description:
        'Changing your own email or password needs current_password (missing or wrong: 422 on ' +
        'current_password; throttled like logins: 429); an Admin changing another user is exempt. A new ' +
        'password revokes every token of the account. A token (site API or impersonation) cannot change an ' +
        "Admin account's password, email, role or external ids, nor make anyone an Admin (403); the last " +
        'enabled Admin cannot be demoted (422).',
      params: idParams('userid'),
      body: userPatchBody,
      example: { location: 'Line 3', summary: 'Maintenance technician' },
      response: userProfileSchema,
      handler: ({ caller, auth, params, body, sourceIp }) =>
        users.patch(accountActor(auth, caller), params.userid, body, sourceIp, auth.tokenHash),
    }),
    route({
      method: 'POST',
      path: '/users/unique_usernames',
      auth: 'admin',
      summary: 'Suggest an available unique_username for each name given',
      body: z.object({
        names: z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(100)),
      }),
      example: { names: ['Jane Doe', 'John Smith'] },
      response: z.array(uniqueUsernameSuggestionSchema),
      handler: ({ body }) => users.suggestUniqueUsernames(body.names),
    }),
    route({
      method: 'GET',
      path: '/users/created_users',
      auth: 'admin',
      summary: 'Users the signed-in Admin created',
      query: pageQuery,
      response: z.array(userSummarySchema),
      handler: ({ caller, query }) => users.createdUsers(caller, query),
    }),
    route({
      method: 'POST',
      path: '/users/createByEmails',
      auth: 'admin',
      summary: 'Create accounts for a list of addresses; each gets a set-password link by mail',
      body: createByEmailsBody,
      example: { emails: ['tech1@example.com', 'tech2@example.com'] },
      response: createdByEmailsSchema,
      handler: ({ caller, auth, body }) => users.createByEmails(accountActor(auth, caller), body),
    }),
  ],
});
