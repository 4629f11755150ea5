/**
 * xAPI statements: store (PUT one, POST one or a batch, all or nothing) and read (by id, by
 * voided id, by filters with `more` cursors). docs/lrs.md, decisions 274 and 275.
 *
 * A write validates every statement, refuses a batch repeating an id, compares ids already
 * stored (same statement: nothing written, different: 409), checks voiding targets, writes the
 * index items (and activity definitions) in transactions of up to 100, and then commits the
 * statement items together in one transaction, each only while its id is free. A reader takes
 * an index item only when its statement item exists with the same seq, so until that commit
 * nothing of the write is visible, and an interrupted write leaves only index items no reader
 * takes (deleted at once when the commit fails).
 */
import { createHash, randomUUID } from 'node:crypto';
import { siteUrl } from '../../shared/config.ts';
import { findUserIdBy, getUser } from '../../shared/db/entities/user.ts';
import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { canonicalJson } from '../../shared/domain/canonical-json.ts';
import {
  checkActor,
  checkStatement,
  isIri,
  isObject,
  isTimestamp,
  isUuid,
  type Json,
  type JsonObject,
  VOIDED_VERB,
} from '../../shared/domain/xapi/statement-rules.ts';
import {
  acceptedLanguages,
  agentKey,
  canonicalOf,
  idsOfStatement,
  matchesFilter,
  type StatementFilter,
  termsOf,
} from '../../shared/domain/xapi/statement-terms.ts';
import { allows, readsOnlyOwnStatements } from '../../shared/domain/xapi/scopes.ts';
import {
  activityItem,
  getStatement,
  getStatements,
  type IndexKind,
  type IndexPartition,
  indexItems,
  indexPartition,
  queryIndex,
  seqCeiling,
  seqFloor,
  seqOf,
  statementPut,
  type StatementRecord,
  statementVoidUpdate,
  writeBeforeCommit,
} from '../../shared/db/entities/xapi-statement.ts';
import { batchDelete } from '../../shared/db/batch.ts';
import { type LabelledWrite, TransactionConditionFailed, transactWrite } from '../../shared/db/transactions.ts';
import { retryOnLostRace } from '../../shared/db/retry.ts';
import { log } from '../../shared/observability/logger.ts';
import { checkAttachmentParts, readAttachments, storeAttachments, type AttachmentPart } from './attachments.ts';
import type { LrsCaller } from './xapi-protocol.ts';

/** The most statements one commit holds (a DynamoDB transaction's 100 items, voided targets included). */
export const MAX_COMMIT_ITEMS = 100;
/**
 * A write must commit within this many ms of the stored time it took, or it starts again with a
 * new one: so every statement stored before `now - CONSISTENCY_WINDOW_MS` is visible, which is
 * what X-Experience-API-Consistent-Through answers.
 */
export const CONSISTENCY_WINDOW_MS = 30_000;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;
/** Index items one GET reads at most before it answers what it found with a `more` cursor. */
const READ_BUDGET = 2000;

interface Prepared {
  id: string;
  sent: string;
  statement: JsonObject;
}

function prepare(raw: unknown, index: number, path: string): Prepared {
  const statement = checkStatement(raw, path);
  const id = typeof statement.id === 'string' ? statement.id.toLowerCase() : randomUUID();
  const { stored: _stored, authority: _authority, version: _version, ...rest } = statement;
  void index;
  return { id, statement: { ...statement, id }, sent: canonicalJson({ ...rest, id }) };
}

/**
 * Stores statements as one unit. `statementId` is PUT's parameter (the statement must carry that
 * id or none). Returns the ids, in order; ids already stored with the same statement are kept as
 * they are (nothing written for them). `guard`, a labelled write, joins the commit transaction (a
 * cmi5 session's move, decision 328); when its condition fails the commit's TransactionConditionFailed
 * passes through to the caller, who judges again.
 */
export async function storeStatements(
  caller: LrsCaller,
  body: unknown,
  parts: AttachmentPart[],
  version: string,
  statementId?: string,
  guard?: LabelledWrite,
): Promise<string[]> {
  let list: unknown[];
  if (statementId !== undefined) {
    if (!isUuid(statementId)) throw new BadRequestError('statementId: must be a UUID');
    if (!isObject(body)) throw new BadRequestError('PUT /xapi/statements takes one statement');
    if (body.id !== undefined && String(body.id).toLowerCase() !== statementId.toLowerCase())
      throw new BadRequestError('statement.id: differs from the statementId parameter');
    list = [{ ...body, id: statementId }];
  } else list = Array.isArray(body) ? body : [body];
  if (list.length === 0) throw new BadRequestError('The batch holds no statement');
  const prepared = list.map((raw, index) =>
    prepare(raw, index, Array.isArray(body) ? `statements[${index}]` : 'statement'),
  );
  const ids = new Set<string>();
  for (const item of prepared) {
    if (ids.has(item.id)) throw new BadRequestError(`statement ${item.id}: appears twice in the batch`);
    ids.add(item.id);
  }
  await checkAttachmentParts(
    prepared.map((item) => item.statement),
    parts,
  );
  await storeAttachments(parts);
  return retryOnLostRace(() => writeOnce(caller, prepared, version, 0, guard), {
    message: 'Statements with these ids were stored meanwhile; send the batch again',
    raceLabels: (label) => label.startsWith('statement:'),
  });
}

async function writeOnce(
  caller: LrsCaller,
  prepared: Prepared[],
  version: string,
  late: number,
  guard?: LabelledWrite,
): Promise<string[]> {
  const started = performance.now();
  const existing = new Map((await getStatements(prepared.map((item) => item.id))).map((r) => [r.statement_id, r]));
  const fresh: Prepared[] = [];
  for (const item of prepared) {
    const stored = existing.get(item.id);
    if (!stored) fresh.push(item);
    else if (stored.sent !== item.sent)
      throw new ConflictError(`statement ${item.id}: a different statement already has this id`);
  }
  if (fresh.length === 0) return prepared.map((item) => item.id);
  const voidTargets = await checkVoiding(fresh);
  if (fresh.length + voidTargets.length + (guard ? 1 : 0) > MAX_COMMIT_ITEMS)
    throw new BadRequestError(`A batch holds at most ${MAX_COMMIT_ITEMS} statements and voided statements together`);

  // Only a credential that reads its own statements alone ever reads its partition (decision 276).
  const ownReader = readsOnlyOwnStatements(caller.scopes) && allows(caller.scopes, 'statements/read', false);
  const storedMs = Date.now();
  const storedIso = new Date(storedMs).toISOString();
  const records: StatementRecord[] = [];
  const beforeCommit: Parameters<typeof writeBeforeCommit>[0] = [];
  const indexKeys: Array<{ pk: string; sk: string }> = [];
  fresh.forEach((item, position) => {
    const seq = seqOf(storedMs, position, item.id);
    const statement: JsonObject = {
      ...item.statement,
      timestamp: item.statement.timestamp ?? storedIso,
      stored: storedIso,
      authority: caller.authority,
      version: typeof item.statement.version === 'string' ? item.statement.version : defaultVersion(version),
    };
    const voiding = (statement.verb as JsonObject).id === VOIDED_VERB;
    const attachments = (Array.isArray(statement.attachments) ? statement.attachments : [])
      .filter((a) => isObject(a) && a.fileUrl === undefined)
      .map((a) => (a as JsonObject).sha2 as string);
    records.push({
      statement_id: item.id,
      body: JSON.stringify(statement),
      sent: item.sent,
      seq,
      stored: storedIso,
      credential: caller.key,
      voiding,
      ...(attachments.length ? { attachments } : {}),
    });
    for (const index of indexItems(partitionsOf(statement, ownReader ? caller.key : undefined), seq, item.id)) {
      beforeCommit.push(index);
      indexKeys.push({ pk: index.pk, sk: index.sk });
    }
    for (const [activityId, definition] of definitionsOf(statement))
      beforeCommit.push(activityItem(activityId, definition));
  });

  const checked = performance.now();
  await writeBeforeCommit(beforeCommit);
  const indexed = performance.now();
  if (Date.now() - storedMs > CONSISTENCY_WINDOW_MS) {
    // Too late to commit under this stored time: readers may have read past it. Once more, then 503.
    await batchDelete(indexKeys);
    if (late > 0) throw new ServiceUnavailableError('The LRS is too slow to store statements now; try again');
    return writeOnce(caller, prepared, version, late + 1, guard);
  }
  try {
    await transactWrite([
      ...records.map(statementPut),
      ...voidTargets.map(statementVoidUpdate),
      ...(guard ? [guard] : []),
    ]);
  } catch (error) {
    await batchDelete(indexKeys);
    if (error instanceof TransactionConditionFailed && error.failedLabels.some((l) => l.startsWith('voids:')))
      throw new BadRequestError('A voiding statement cannot void another voiding statement');
    throw error;
  }
  // Where a write's time goes (docs/benchmarks.md, "The LRS"): reads and checks, index items, the commit.
  log().debug('statements stored', {
    statements: records.length,
    index_items: beforeCommit.length,
    check_ms: Math.round(checked - started),
    index_ms: Math.round(indexed - checked),
    commit_ms: Math.round(performance.now() - indexed),
  });
  return prepared.map((item) => item.id);
}

function defaultVersion(version: string): string {
  return version === '2.0.0' ? '2.0.0' : '1.0.0';
}

/**
 * The voiding statements' targets: a stored target that is itself a voiding statement is a 400;
 * a target not stored is allowed (the LRS may not have it) and nothing is marked.
 */
async function checkVoiding(fresh: Prepared[]): Promise<string[]> {
  const targets = fresh
    .filter((item) => (item.statement.verb as JsonObject).id === VOIDED_VERB)
    .map((item) => ((item.statement.object as JsonObject).id as string).toLowerCase());
  if (targets.length === 0) return [];
  const stored = await getStatements(targets);
  for (const target of stored)
    if (target.voiding) throw new BadRequestError('A voiding statement cannot void another voiding statement');
  const inBatch = new Set(fresh.map((item) => item.id));
  for (const target of targets)
    if (inBatch.has(target)) throw new BadRequestError('A statement cannot be voided in the batch that stores it');
  return stored.map((target) => target.statement_id);
}

function partitionsOf(statement: JsonObject, credential: string | undefined): IndexPartition[] {
  const terms = termsOf(statement);
  const partitions: IndexPartition[] = [indexPartition('ALL')];
  if (credential !== undefined) partitions.push(indexPartition('CRED', credential));
  const add = (kind: IndexKind, values: Array<string | undefined>) => {
    for (const value of values) if (value !== undefined) partitions.push(indexPartition(kind, value));
  };
  // The plain agent and activity filters read the related partitions and check the rest in code:
  // their values are a subset, and two items fewer a statement halve nothing but cost less.
  add('RAGENT', terms.relatedAgents);
  add('VERB', [terms.verb]);
  add('RACT', terms.relatedActivities);
  add('REG', [terms.registration]);
  return partitions;
}

/** Activities a statement defines (object, context activities), for GET /xapi/activities. */
function definitionsOf(statement: JsonObject): Array<[string, Json]> {
  const found: Array<[string, Json]> = [];
  const visit = (activity: Json) => {
    if (isObject(activity) && typeof activity.id === 'string' && isObject(activity.definition))
      found.push([activity.id, activity.definition]);
  };
  const object = statement.object as JsonObject;
  if (object.objectType === undefined || object.objectType === 'Activity') visit(object);
  const context = statement.context;
  if (isObject(context) && isObject(context.contextActivities))
    for (const list of Object.values(context.contextActivities))
      for (const activity of Array.isArray(list) ? list : [list]) visit(activity);
  return found;
}

// ---- reads ----

const QUERY_PARAMS = new Set([
  'statementId',
  'voidedStatementId',
  'agent',
  'verb',
  'activity',
  'registration',
  'related_activities',
  'related_agents',
  'since',
  'until',
  'limit',
  'format',
  'attachments',
  'ascending',
  'more',
]);

type Format = 'exact' | 'ids' | 'canonical';

export interface StatementsAnswer {
  /** One statement (by id) or a StatementResult. */
  body: JsonObject;
  lastModified?: string;
  /** Attachment digests to send along (attachments=true). */
  attachments?: Array<{ sha2: string; contentType: string }>;
  withAttachments: boolean;
}

function booleanParam(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  if (value !== 'true' && value !== 'false') throw new BadRequestError(`${name}: must be true or false`);
  return value === 'true';
}

function formatOf(query: URLSearchParams): Format {
  const format = query.get('format') ?? 'exact';
  if (format !== 'exact' && format !== 'ids' && format !== 'canonical')
    throw new BadRequestError('format: must be ids, exact or canonical');
  return format;
}

function present(statement: JsonObject, format: Format, languages: string[]): JsonObject {
  if (format === 'ids') return idsOfStatement(statement);
  if (format === 'canonical') return canonicalOf(statement, languages) as JsonObject;
  return statement;
}

function attachmentsOf(statements: JsonObject[]): Array<{ sha2: string; contentType: string }> {
  const seen = new Map<string, string>();
  for (const statement of statements)
    for (const attachment of Array.isArray(statement.attachments) ? statement.attachments : [])
      if (isObject(attachment) && attachment.fileUrl === undefined)
        seen.set(attachment.sha2 as string, attachment.contentType as string);
  return [...seen].map(([sha2, contentType]) => ({ sha2, contentType }));
}

/** GET /xapi/statements: one statement by id or voided id, or a filtered page. */
export async function readStatements(
  caller: LrsCaller,
  query: URLSearchParams,
  acceptLanguage: string | undefined,
): Promise<StatementsAnswer> {
  for (const name of query.keys())
    if (!QUERY_PARAMS.has(name)) throw new BadRequestError(`${name}: is not a parameter of GET /xapi/statements`);
  const languages = acceptedLanguages(acceptLanguage);
  const format = formatOf(query);
  const withAttachments = booleanParam(query, 'attachments');
  const mineOnly = readsOnlyOwnStatements(caller.scopes);
  const statementId = query.get('statementId');
  const voidedId = query.get('voidedStatementId');
  if (statementId !== null || voidedId !== null) {
    if (statementId !== null && voidedId !== null)
      throw new BadRequestError('statementId and voidedStatementId cannot be sent together');
    for (const name of query.keys())
      if (!['statementId', 'voidedStatementId', 'format', 'attachments'].includes(name))
        throw new BadRequestError(`${name}: cannot be sent with statementId or voidedStatementId`);
    const id = (statementId ?? voidedId) as string;
    if (!isUuid(id))
      throw new BadRequestError(`${statementId !== null ? 'statementId' : 'voidedStatementId'}: must be a UUID`);
    const record = await getStatement(id);
    const wanted = record && (statementId !== null ? !record.voided : record.voided === true);
    if (!record || !wanted || (mineOnly && record.credential !== caller.key))
      throw new NotFoundError('No such statement');
    const statement = JSON.parse(record.body) as JsonObject;
    return {
      body: present(statement, format, languages),
      lastModified: record.stored,
      withAttachments,
      attachments: withAttachments ? attachmentsOf([statement]) : undefined,
    };
  }
  const cursor = query.get('more');
  const request = cursor !== null ? decodeCursor(cursor) : parseListQuery(query, format, withAttachments);
  if (cursor !== null && [...query.keys()].some((name) => name !== 'more'))
    throw new BadRequestError('more: a cursor is sent alone');
  return listStatements(caller, request, mineOnly, languages);
}

interface ListRequest {
  filter: StatementFilter;
  since?: string;
  until?: string;
  limit: number;
  ascending: boolean;
  format: Format;
  attachments: boolean;
  after?: string;
}

function parseListQuery(query: URLSearchParams, format: Format, attachments: boolean): ListRequest {
  const filter: StatementFilter = {};
  const agent = query.get('agent');
  if (agent !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(agent);
    } catch {
      throw new BadRequestError('agent: must be an Agent or Group as JSON');
    }
    checkActor(parsed, 'agent');
    filter.agent = agentKey(parsed);
    if (filter.agent === undefined) throw new BadRequestError('agent: an anonymous Group cannot be a filter');
  }
  const verb = query.get('verb');
  if (verb !== null) {
    if (!isIri(verb)) throw new BadRequestError('verb: must be an IRI');
    filter.verb = verb;
  }
  const activity = query.get('activity');
  if (activity !== null) {
    if (!isIri(activity)) throw new BadRequestError('activity: must be an IRI');
    filter.activity = activity;
  }
  const registration = query.get('registration');
  if (registration !== null) {
    if (!isUuid(registration)) throw new BadRequestError('registration: must be a UUID');
    filter.registration = registration.toLowerCase();
  }
  filter.relatedActivities = booleanParam(query, 'related_activities');
  filter.relatedAgents = booleanParam(query, 'related_agents');
  const since = query.get('since') ?? undefined;
  const until = query.get('until') ?? undefined;
  for (const [name, value] of [
    ['since', since],
    ['until', until],
  ] as const)
    if (value !== undefined && !isTimestamp(value)) throw new BadRequestError(`${name}: must be an ISO 8601 timestamp`);
  const limitText = query.get('limit');
  let limit = DEFAULT_LIMIT;
  if (limitText !== null) {
    if (!/^\d+$/.test(limitText)) throw new BadRequestError('limit: must be a non-negative integer');
    limit = Number(limitText) === 0 ? MAX_LIMIT : Math.min(Number(limitText), MAX_LIMIT);
  }
  return { filter, since, until, limit, ascending: booleanParam(query, 'ascending'), format, attachments };
}

function encodeCursor(request: ListRequest): string {
  return Buffer.from(JSON.stringify(request)).toString('base64url');
}

function decodeCursor(cursor: string): ListRequest {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as ListRequest;
    if (!isObject(parsed) || typeof parsed.limit !== 'number' || typeof parsed.after !== 'string') throw new Error();
    return parsed;
  } catch {
    throw new BadRequestError('more: not a cursor this LRS gave');
  }
}

/** The index that narrows the query most: registration, verb, activity, agent, else every statement. */
function primaryPartition(filter: StatementFilter, mineOnly: string | undefined): IndexPartition {
  if (filter.registration) return indexPartition('REG', filter.registration);
  if (filter.verb) return indexPartition('VERB', filter.verb);
  if (filter.activity) return indexPartition('RACT', filter.activity);
  if (filter.agent) return indexPartition('RAGENT', filter.agent);
  if (mineOnly) return indexPartition('CRED', mineOnly);
  return indexPartition('ALL');
}

async function listStatements(
  caller: LrsCaller,
  request: ListRequest,
  mineOnly: boolean,
  languages: string[],
): Promise<StatementsAnswer> {
  const partition = primaryPartition(request.filter, mineOnly ? caller.key : undefined);
  const from = request.since ? seqFloor(Date.parse(request.since) + 1) : '0';
  const to = request.until ? seqCeiling(Date.parse(request.until)) : '~';
  const found: JsonObject[] = [];
  let after = request.after;
  let read = 0;
  let lastModified: string | undefined;
  let exhausted = false;
  while (found.length < request.limit && read < READ_BUDGET) {
    const page = await queryIndex({
      partition,
      from,
      to,
      ascending: request.ascending,
      afterSeq: after,
      limit: Math.min(200, Math.max(25, (request.limit - found.length) * 2)),
    });
    read += page.entries.length;
    const records = new Map(
      (await getStatements(page.entries.map((entry) => entry.statementId))).map((r) => [r.statement_id, r]),
    );
    let consumed = 0;
    for (const entry of page.entries) {
      consumed++;
      after = entry.seq;
      const record = records.get(entry.statementId);
      if (!record || record.seq !== entry.seq || record.voided) continue;
      if (mineOnly && record.credential !== caller.key) continue;
      const statement = JSON.parse(record.body) as JsonObject;
      if (!matchesFilter(termsOf(statement), request.filter)) continue;
      found.push(statement);
      if (!lastModified || record.stored > lastModified) lastModified = record.stored;
      if (found.length === request.limit) break;
    }
    if (!page.lastSeq && consumed === page.entries.length) {
      exhausted = true;
      break;
    }
  }
  const more = !exhausted && after !== undefined ? `/xapi/statements?more=${encodeCursor({ ...request, after })}` : '';
  return {
    body: { statements: found.map((statement) => present(statement, request.format, languages)), more },
    lastModified,
    withAttachments: request.attachments,
    attachments: request.attachments ? attachmentsOf(found) : undefined,
  };
}

export { readAttachments };

/** How many of an agent's latest statements the Person object reads names and identifiers from. */
const PERSON_STATEMENTS = 50;

/**
 * The Person object (xAPI Communication, Agents Resource): every name and identifier this LRS
 * knows the person by. Known together: an mbox and its mbox_sha1sum; a site account
 * (`account {homePage: <site>, name: <userid>}`, as cmi5 launches name learners) and that
 * user's email; and the names the agent carried in its latest statements.
 */
export async function personOf(agent: JsonObject): Promise<JsonObject> {
  const names = new Set<string>();
  const mboxes = new Set<string>();
  const sha1s = new Set<string>();
  const openids = new Set<string>();
  const accounts = new Map<string, JsonObject>();
  const add = (known: JsonObject) => {
    if (typeof known.name === 'string') names.add(known.name);
    if (typeof known.mbox === 'string') {
      mboxes.add(known.mbox);
      sha1s.add(createHash('sha1').update(known.mbox).digest('hex'));
    }
    if (typeof known.mbox_sha1sum === 'string') sha1s.add(known.mbox_sha1sum.toLowerCase());
    if (typeof known.openid === 'string') openids.add(known.openid);
    if (isObject(known.account))
      accounts.set(`${known.account.homePage}|${known.account.name}`, {
        homePage: known.account.homePage as string,
        name: known.account.name as string,
      });
  };
  add(agent);
  const key = agentKey(agent);
  const site = siteUrl().replace(/\/+$/, '');
  if (typeof agent.mbox === 'string' && agent.mbox.toLowerCase().startsWith('mailto:')) {
    const userid = await findUserIdBy('EMAIL', agent.mbox.slice('mailto:'.length));
    if (userid !== undefined) accounts.set(`${site}|${userid}`, { homePage: site, name: String(userid) });
  }
  if (isObject(agent.account) && agent.account.homePage === site && /^\d{1,12}$/.test(String(agent.account.name))) {
    const user = await getUser(Number(agent.account.name));
    if (user) add({ mbox: `mailto:${user.email}` });
  }
  if (key !== undefined) {
    const page = await queryIndex({
      partition: indexPartition('RAGENT', key),
      from: seqFloor(0),
      to: seqCeiling(Date.now() + 60_000),
      ascending: false,
      limit: PERSON_STATEMENTS,
    });
    const stored = await getStatements(page.entries.map((entry) => entry.statementId));
    for (const record of stored) {
      const statement = JSON.parse(record.body) as JsonObject;
      const context = isObject(statement.context) ? statement.context : {};
      for (const candidate of [statement.actor, statement.object, context.instructor])
        if (isObject(candidate) && agentKey(candidate) === key && typeof candidate.name === 'string')
          names.add(candidate.name);
    }
  }
  const person: JsonObject = { objectType: 'Person' };
  if (names.size) person.name = [...names];
  if (mboxes.size) person.mbox = [...mboxes];
  if (sha1s.size) person.mbox_sha1sum = [...sha1s];
  if (openids.size) person.openid = [...openids];
  if (accounts.size) person.account = [...accounts.values()];
  return person;
}
