/**
 * The audit trail of documents and users (beyond the spec; Admins only): paged history and a
 * chain verification that recomputes every hash and link and names the first broken seq.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams, pathId } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { DOCTYPES } from '../../shared/domain/doctypes.ts';
import { auditHistorySchema, auditVerificationSchema } from '../../shared/views/audit-views.ts';
import type * as AuditService from './audit.service.ts';

const audit = lazyService<typeof AuditService>(() => import('./audit.service.ts'));

const beyondSpec = { 'x-beyond-spec': true };
const documentParams = z.object({ doctype: z.enum(DOCTYPES), docid: pathId });

const HISTORY_NOTE =
  'Oldest first by seq; `offset` skips that many records. Each record: who (actor_userid, ' +
  'impersonator_userid), what (action, details with old → new values), when (date), and its hash chained to ' +
  "the previous record's (previous_hash).";
const VERIFY_NOTE =
  "Reads the whole chain and recomputes every record's hash (SHA-256 of its canonical JSON) and every link; " +
  '`first_broken_seq` is the first record that is missing or does not verify (problem: missing_record, ' +
  'hash_mismatch, link_mismatch, head_mismatch).';

export const auditGroup = defineGroup({
  name: 'audit',
  access: { table: 'read' },
  routes: [
    route({
      method: 'GET',
      path: '/audit/documents/{doctype}/{docid}',
      auth: 'admin',
      summary: 'Audit history of a guide or wiki page (reviews, approval requests, signatures)',
      description: HISTORY_NOTE,
      params: documentParams,
      query: z.object(pagination),
      response: auditHistorySchema,
      extensions: beyondSpec,
      handler: ({ params, query }) => audit.documentHistory(params.doctype, params.docid, query),
    }),
    route({
      method: 'GET',
      path: '/audit/documents/{doctype}/{docid}/verify',
      auth: 'admin',
      summary: 'Verify the audit chain of a guide or wiki page',
      description: VERIFY_NOTE,
      params: documentParams,
      response: auditVerificationSchema,
      extensions: beyondSpec,
      handler: ({ params }) => audit.documentVerify(params.doctype, params.docid),
    }),
    route({
      method: 'GET',
      path: '/audit/users/{userid}',
      auth: 'admin',
      summary: 'Audit history of a user (what they did and what was done to their account)',
      description: HISTORY_NOTE,
      params: idParams('userid'),
      query: z.object(pagination),
      response: auditHistorySchema,
      extensions: beyondSpec,
      handler: ({ params, query }) => audit.userHistory(params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/audit/users/{userid}/verify',
      auth: 'admin',
      summary: 'Verify the audit chain of a user',
      description: VERIFY_NOTE,
      params: idParams('userid'),
      response: auditVerificationSchema,
      extensions: beyondSpec,
      handler: ({ params }) => audit.userVerify(params.userid),
    }),
  ],
});
