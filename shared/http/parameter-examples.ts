/**
 * Examples of path and query parameters by name, shown in the OpenAPI document: one table for the
 * whole API, so every operation shows a request example without each route repeating it. A name
 * can mean different things on different routes (`id`, `type`), so it lists candidates; a
 * route gets the first candidate its own schema accepts (test/unit/openapi-examples.test.ts
 * checks that every path parameter gets one). A route's `queryExample` overrides the table.
 */
import type * as z from 'zod/mini';

export const PARAMETER_EXAMPLES: Record<string, string[]> = {
  // Ids and names in paths
  userid: ['1042'],
  asset: ['default-avatar.thumbnail'],
  sso_userid: ['okta|00u8x2k1'],
  /** An identity provider (company sign-in). */
  providerid: ['okta'],
  email: ['dana.fisher@example.com'],
  employee_id: ['E-20431'],
  teamid: ['17'],
  /** A site API token's id (16 hex; decision 227). */
  tokenid: ['3f9a6c0d2b7e4a18'],
  /** An LRS credential's key (20 hex; docs/lrs.md). */
  key: ['5d1f0b7a9c3e2f4a6b8c'],
  /** A cmi5 registration and launch session (UUIDs; docs/lrs.md). */
  registration: ['3f0c1a52-9d1e-4b8a-a7c4-2e6f9b1d5c80'],
  session_id: ['8b5e2d7a-1c3f-4e6a-9b0d-5f7c2a1e4d90'],
  guideid: ['1203'],
  stepid: ['5521'],
  releaseid: ['88'],
  skillid: ['3'],
  collectionid: ['12'],
  wikiid: ['640'],
  namespace: ['WIKI', 'CATEGORY'],
  title: ['Battery_Safety', 'Replacing the battery'],
  /** A category's title (GET /categories/{name}). */
  name: ['Printers'],
  search: ['dana'],
  /** The words of GET /search/{query}. */
  query: ['battery'],
  commentid: ['3310'],
  context: ['guide'],
  contextid: ['1203'],
  doc_type: ['guide'],
  doctype: ['guide'],
  /** A role whose required skills are read or set (docs/competency.md). */
  role: ['Author'],
  docid: ['1203'],
  entryid: ['702'],
  /** A client-made id (decision 224). */
  client_guid: ['0b9e4c1e-5d0a-4f4e-9a43-6c1d2b7e8f10'],
  // Site paths of media (decision 197): an image file by guid and size, a document by guid
  // ... and the pages' client script or stylesheet by the hash of its content (decision 294).
  file: ['3f1c9a4e8b7d4c2a9e6f1b0d2c4a6e8f.medium', 'editor.3f9a1c0b7d2e4a61.js'],
  guid: ['3f1c9a4e8b7d4c2a9e6f1b0d2c4a6e8f'],
  filename: ['torque-table.pdf'],
  type: ['images', 'guide', 'image'],
  itemId: ['9301'],
  imageid: ['9301', '9301,9302'],
  videoid: ['9410'],
  documentid: ['1203'],
  id: ['12', 'guide', 'fd3a5b1c-6a7e-4d8b-9a55-0f2c3d4e5f60'],
  importid: ['fd3a5b1c-6a7e-4d8b-9a55-0f2c3d4e5f60', '31'],
  attemptid: ['1'],
  course_assignmentid: ['215'],
  assigneeid: ['1042'],
  assignee_userid: ['1042'],
  assignee_teamid: ['17'],
  stage_assessmentid: ['44'],
  signoff_requestid: ['91'],
  quizid: ['12'],
  sessionid: ['4007'],
  form_revisionid: ['2210'],
  field_revisionid: ['2214'],
  prsid: ['6'],
  searchTerm: ['battery'],
  search_phrase: ['battery'],
  approval_processid: ['8'],
  approval_requestid: ['57'],
  webhookid: ['5'],
  exportid: ['3'],
  // Common query parameters
  limit: ['20'],
  offset: ['0'],
  revisionid: ['78'],
};

/** The first candidate for `name` that the route's schema of that location accepts. */
export function parameterExample(name: string, schema: z.ZodMiniType | undefined): string | undefined {
  const candidates = PARAMETER_EXAMPLES[name];
  if (!candidates) return undefined;
  if (!schema) return candidates[0];
  const shape = (schema as unknown as { shape?: Record<string, z.ZodMiniType> }).shape;
  const field = shape?.[name];
  if (!field) return candidates[0];
  return candidates.find((candidate) => field.safeParse(candidate).success);
}
