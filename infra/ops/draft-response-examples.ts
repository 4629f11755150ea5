/**
 * Drafts response examples (decision 177) for the routes that have none: a value for every field
 * of the route's response schema, picked by the field's name (ids, titles, dates, URLs of one
 * imaginary site: guide 1203 "Replace the battery", user 1042 Dana Fisher, 26 Nov 2025), and
 * checked with the schema. Adds only what is missing to `functions/<group>/<group>.response-examples.json`;
 * never overwrites an example, so edit the drafts into real ones freely.
 *   npx tsx infra/ops/draft-response-examples.ts && npx biome format --write functions
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { routeGroups } from '../../functions/routes.ts';
import { REPO_ROOT } from '../repo-paths.ts';

type S = Record<string, any>;
const T0 = 1764150000; // 2025-11-26
const words: Record<string, string> = {
  title: 'Replace the battery',
  display_title: 'Battery safety',
  subject: 'Battery pack',
  name: 'Line maintenance',
  username: 'Dana Fisher',
  unique_username: 'dfisher',
  email: 'dana.fisher@example.com',
  category: 'Battery Packs',
  summary: 'How to swap the battery pack safely',
  introduction: 'Switch the unit off first.',
  text: 'Unplug the charger.',
  text_raw: 'Unplug the charger.',
  text_rendered: '<p>Unplug the charger.</p>',
  contents: 'Keep packs below 40 °C.',
  contents_raw: 'Keep packs below 40 °C.',
  contents_rendered: '<p>Keep packs below 40 °C.</p>',
  description: 'Quarterly check',
  locale: 'en',
  langid: 'en',
  type: 'how-to',
  namespace: 'WIKI',
  difficulty: 'Easy',
  status: 'active',
  message: 'Done',
  url: 'https://docs.example.com/Guide/Replace+the+battery/1203',
  href: 'https://docs.example.com/Guide/1203',
  guid: '8c1d3e0f2a4b4c6d',
  filename: 'battery.jpg',
  file: 'battery.jpg',
  mime: 'image/jpeg',
  label: 'Serial number',
  value: 'SN-20431',
  notes: 'Still accurate',
  note: 'Checked',
  comment: 'Looks good',
  tag: 'battery',
  tags: 'battery',
  version: '1.2',
  privilege: 'Author',
  role: 'member',
  color: 'red',
  bullet: 'black',
  field_type: 'Text Input',
  code: 'missing_field',
  field: 'revisionid',
  outcome: 'approved',
  doctype: 'guide',
  doc_type: 'guide',
  context: 'guide',
  format: 'json',
  token: '3f9c2a7e5b1d4c6f8a0e9b7d5c3a1f2e',
  authToken: '3f9c2a7e5b1d4c6f8a0e9b7d5c3a1f2e',
  secret: 'whsec_5d1f0a9c',
  event: 'guide.published',
  location: 'Leeds',
  about_raw: 'Field technician',
  original: 'https://media.example.com/igi/8c1d3e0f2a4b4c6d.full',
  thumbnail: 'https://media.example.com/igi/8c1d3e0f2a4b4c6d.thumbnail',
  mini: 'https://media.example.com/igi/8c1d3e0f2a4b4c6d.mini',
  standard: 'https://media.example.com/igi/8c1d3e0f2a4b4c6d.standard',
  about_rendered: '<p>Field technician</p>',
  sso_userid: 'okta|00u8x2k1',
  employee_id: 'E-20431',
  manage: 'https://docs.example.com/Manage/User/1042',
  existing: 'dfisher',
  avatarUrl: 'https://media.example.com/igi/4b1d.thumbnail',
  introduction_raw: 'Switch the unit off first.',
  introduction_rendered: '<p>Switch the unit off first.</p>',
  conclusion_raw: 'Recharge before use.',
  conclusion_rendered: '<p>Recharge before use.</p>',
  flags: 'GUIDE_USER_CONTRIBUTED',
  document_extension: 'pdf',
  fullUrl: 'https://docs.example.com/Wiki/Battery_Safety',
  ancestors: 'Safety',
  children: 'Charging',
  identification_raw: 'BP-400 packs',
  identification_rendered: '<p>BP-400 packs</p>',
  term: 'torque',
  translation: 'Drehmoment',
  FileName: 'battery.jpg',
  failure: 'The file is not an image',
  extensions: 'jpg',
  state: 'requested',
  column: 'title',
  codecs: 'avc1.64001F',
  html: '<iframe src="https://video.example.com/e/42"></iframe>',
  identifier: 'com.example.battery-course',
  launch: 'index.html',
  launch_parameters: 'lang=en',
  editUrl: 'https://docs.example.com/Edit/Guide/1203',
  viewUrl: 'https://docs.example.com/Guide/1203',
  cancellation_reason: 'Replaced by the 2026 course',
  user_avatar: 'https://media.example.com/igi/4b1d.thumbnail',
  comments: 'Approved for release',
  path: '/guides/1203',
  placeholder: 'SN-0000',
  textarea: 'Notes',
  options: '["pass","fail"]',
  workorderid: 'WO-77120',
  badgeid: 'first-guide',
  invalid: 'not-an-email',
  time_required: '15 minutes',
  openapi: '3.1.0',
  time_required_max: '20 minutes',
  time_required_min: '10 minutes',
  flag: 'GUIDE_USER_CONTRIBUTED',
  ancestor: 'Safety',
  privacy: 'public',
  term_type: 'word',
  hash: '9f2c0e7a5b3d1f4e6a8c0b2d4f6e8a1c3b5d7f9e1a3c5b7d9f1e3a5c7b9d1f3e',
};
function str(key: string, s: S): string {
  if (s.format === 'date-time') return '2025-11-26T09:30:00.000Z';
  if (s.format === 'email' || /email/.test(key)) return 'dana.fisher@example.com';
  if (s.format === 'uri' || /url$|_url|uri/.test(key)) return words.url;
  if (s.format === 'uuid' || /uuid/.test(key)) return 'fd3a5b1c-6a7e-4d8b-9a55-0f2c3d4e5f60';
  if (words[key]) return words[key];
  for (const [w, v] of Object.entries(words)) if (key.endsWith(`_${w}`)) return v;
  if (/date|time/.test(key)) return '2025-11-26T09:30:00Z';
  if (/id$/.test(key)) return '1203';
  if (/title/.test(key)) return words.title;
  if (/team_name/.test(key)) return 'Line maintenance';
  if (/name/.test(key)) return 'Dana Fisher';
  if (/_url$|Url$/.test(key)) return words.url;
  if (/_raw$/.test(key)) return 'Check the seal.';
  if (/_rendered$/.test(key)) return '<p>Check the seal.</p>';
  return key.replace(/_/g, ' ');
}
const ids: Record<string, number> = {
  team: 17,
  teams: 17,
  user: 1042,
  guide: 1203,
  userid: 1042,
  teamid: 17,
  guideid: 1203,
  stepid: 5521,
  releaseid: 88,
  wikiid: 640,
  commentid: 3310,
  entryid: 702,
  imageid: 9301,
  videoid: 9410,
  quizid: 12,
  sessionid: 4007,
  revisionid: 78,
  form_revisionid: 2210,
  field_revisionid: 2214,
  approval_processid: 8,
  approval_requestid: 57,
  webhookid: 5,
  prdid: 31,
  prsid: 6,
  course_assignmentid: 215,
  signoff_requestid: 91,
  stage_assessmentid: 44,
  lineid: 8810,
  id: 9301,
  docid: 1203,
  contextid: 1203,
  parentid: 0,
  exportid: 3,
  importid: 31,
  moduleid: 12,
  courseid: 640,
  itemid: 9301,
};
function int(key: string, s: S): number {
  let v: number;
  if (ids[key] !== undefined) v = ids[key];
  else if (/(_date|date|_at|modified|created|time|expires|since|due)$/.test(key) || /date/.test(key)) v = T0;
  else if (/id$/.test(key)) v = 1203;
  else if (/count|total|score|points|attempts/.test(key)) v = 3;
  else if (/orderby|order|level|position|version|major|minor/.test(key)) v = 1;
  else if (/width/.test(key)) v = 800;
  else if (/height/.test(key)) v = 600;
  else if (/size|bytes/.test(key)) v = 48213;
  else if (/limit/.test(key)) v = 20;
  else if (/offset/.test(key)) v = 0;
  else if (/seconds|duration|time_required_min/.test(key)) v = 600;
  else if (/time_required_max/.test(key)) v = 1200;
  else if (/percent/.test(key)) v = 80;
  else v = 1;
  if (s.minimum !== undefined && v < s.minimum) v = s.minimum;
  if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) v = s.exclusiveMinimum + 1;
  if (s.maximum !== undefined && v > s.maximum) v = s.maximum;
  return v;
}
let ROOT: S = {};
function gen(s: S, key = '', depth = 0): unknown {
  if (!s || depth > 12) return null;
  // The schema admits only its `type` (additionalProperties false in the document).
  if (key === 'contents_json') return { type: 'doc' };
  if (key === 'replies' && depth > 2) return [];
  if (s.$ref) {
    const name = String(s.$ref).split('/').pop()!;
    const target = s.$ref === '#' ? ROOT : (ROOT.$defs ?? ROOT.definitions)?.[name];
    if (depth > 4 && target?.type === 'object') return undefined;
    return gen({ ...target, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) }, key, depth);
  }
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf || s.oneOf) {
    const opts: S[] = s.anyOf ?? s.oneOf;
    const nonNull = opts.filter((o) => o.type !== 'null' && !(o.type === 'boolean' && o.const === false));
    return gen(nonNull[0] ?? opts[0], key, depth);
  }
  if (s.allOf) return Object.assign({}, ...s.allOf.map((x: S) => gen(x, key, depth)));
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t: string) => t !== 'null') ?? 'null';
  switch (type) {
    case 'object': {
      const out: S = {};
      for (const [k, v] of Object.entries<S>(s.properties ?? {})) out[k] = gen(v, k, depth + 1);
      if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
        const k = s.propertyNames?.enum?.[0] ?? (key === 'badge_counts' ? 'bronze' : 'en');
        out[k] = gen(s.additionalProperties, k, depth + 1);
      }
      return out;
    }
    case 'array': {
      if (depth > 4 && s.items?.$ref) return [];
      const item = gen(s.items ?? {}, key.replace(/s$/, ''), depth + 1);
      const n = Math.max(1, s.minItems ?? 1);
      return Array.from({ length: n }, () => structuredClone(item));
    }
    case 'string': {
      let v = str(key, s);
      if (s.pattern && !new RegExp(s.pattern).test(v)) v = patternGuess(s.pattern, v);
      if (s.maxLength !== undefined && v.length > s.maxLength) v = v.slice(0, s.maxLength);
      return v;
    }
    case 'integer':
      return int(key, s);
    case 'number':
      return /lat/.test(key) ? 53.8 : /lon/.test(key) ? -1.55 : /reputation/.test(key) ? 1 : int(key, s);
    case 'boolean':
      return !/^(deleted|is_deleted|locked|archived|deprecated|hidden|private)$/.test(key);
    case 'null':
      return null;
    default:
      return null;
  }
}
function patternGuess(p: string, v: string) {
  if (/\\d\+\)?\.\(\\d\+|\\d\+\\\.\\d\+/.test(p)) return '1.2';
  if (/\^\\d/.test(p)) return '1';
  return v;
}
function problems(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) {
  return result.success
    ? []
    : result.error!.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
}

function groupFile(group: string): string | undefined {
  for (const folder of readdirSync(join(REPO_ROOT, 'functions'))) {
    if (existsSync(join(REPO_ROOT, 'functions', folder, `${group}.routes.ts`)))
      return join(REPO_ROOT, 'functions', folder, `${group}.response-examples.json`);
  }
  return undefined;
}

let drafted = 0;
for (const group of routeGroups) {
  const file = groupFile(group.name);
  if (!file) continue;
  const examples: Record<string, unknown> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  for (const route of group.routes) {
    const key = `${route.method} ${route.path}`;
    if (!route.response || route.status === 204 || route.responseExample !== undefined || key in examples) continue;
    ROOT = z.toJSONSchema(route.response, { io: 'output', unrepresentable: 'any' }) as S;
    const draft = gen(ROOT);
    const issues = problems(route.response.safeParse(draft));
    if (issues.length) console.log(`${key}: write it by hand (${issues.join('; ')})`);
    else {
      examples[key] = draft;
      changed = true;
      drafted++;
    }
  }
  if (changed) writeFileSync(file, `${JSON.stringify(examples, null, 2)}\n`);
}
console.log(`${drafted} drafted`);
