/**
 * A cmi5 course structure (cmi5.xml, the cmi5 specification's section 13), without I/O: the
 * course, every block and every AU in document order, each naming its parent block, with what
 * the LMS needs to launch and judge an AU (moveOn, masteryScore, launchMethod, launchParameters,
 * entitlementKey, activityType). A structure the specification forbids is refused with a
 * PackageRejection('manifest_invalid') that names the element: ids that are not IRIs or repeat,
 * AU URLs that are neither http(s) nor a path inside the package, values outside their types,
 * missing required elements, a block without AUs. docs/lrs.md, decision 309.
 */
import { XMLParser } from 'fast-xml-parser';
import { PackageRejection } from '../module-package.ts';
import { isIri } from './statement-rules.ts';

import { type Cmi5Course, LAUNCH_METHODS, MAX_CMI5_NODES, MOVE_ON } from './cmi5-structure.ts';

// preserveOrder keeps blocks and AUs in document order (they interleave).
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function reject(message: string): never {
  throw new PackageRejection('manifest_invalid', `cmi5.xml: ${message}`);
}

function tagOf(node: OrderedNode): string | undefined {
  return Object.keys(node).find((key) => key !== ':@');
}

function childrenOf(node: OrderedNode): OrderedNode[] {
  const tag = tagOf(node);
  const children = tag === undefined ? undefined : node[tag];
  return Array.isArray(children) ? (children as OrderedNode[]) : [];
}

function attrs(node: OrderedNode): Record<string, string> {
  return node[':@'] ?? {};
}

function textOf(node: OrderedNode): string {
  return childrenOf(node)
    .map((child) => (typeof child['#text'] === 'string' ? child['#text'] : ''))
    .join('')
    .trim();
}

function named(node: OrderedNode, tag: string): OrderedNode[] {
  return childrenOf(node).filter((child) => tagOf(child) === tag);
}

/** The first langstring of a title or description (the LMS shows one; the AU gets them as they are). */
function langText(node: OrderedNode, tag: string, where: string, required: boolean): string {
  const [element, extra] = named(node, tag);
  if (extra) reject(`${where} has more than one <${tag}>`);
  if (!element) {
    if (required) reject(`${where} has no <${tag}>`);
    return '';
  }
  const strings = named(element, 'langstring');
  if (strings.length === 0) reject(`${where}: <${tag}> holds no <langstring>`);
  return textOf(strings[0]!);
}

function optionalText(node: OrderedNode, tag: string, where: string): string | null {
  const [element, extra] = named(node, tag);
  if (extra) reject(`${where} has more than one <${tag}>`);
  return element ? textOf(element) : null;
}

/** An AU's URL: http(s) with a host, or a relative path that stays inside the package. */
export function checkAuUrl(url: string, where: string): void {
  if (url === '') reject(`${where}: <url> is empty`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      reject(`${where}: <url> "${url}" is not a valid URL`);
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.hostname === '')
      reject(`${where}: <url> "${url}" must be an http(s) URL or a path inside the package`);
    return;
  }
  const path = url.split(/[?#]/)[0]!;
  if (
    url.startsWith('//') ||
    path.startsWith('/') ||
    path === '' ||
    /[\\\s\0]/.test(path) ||
    path.split('/').some((segment) => segment === '..')
  )
    reject(`${where}: <url> "${url}" must be an http(s) URL or a path inside the package`);
}

function attributeEnum<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  name: string,
  where: string,
) {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    reject(`${where}: ${name}="${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
}

/** Parses a well-formed cmi5.xml into its course structure, or refuses it. */
export function parseCmi5Course(xml: string): Cmi5Course {
  const document = parser.parse(xml) as OrderedNode[];
  const root = document.find((node) => tagOf(node) === 'courseStructure');
  if (!root) reject('the root element must be <courseStructure>');
  const ids = new Set<string>();
  const claim = (id: string | undefined, where: string): string => {
    if (id === undefined || id === '') reject(`${where} has no id`);
    if (!isIri(id)) reject(`${where}: id "${id}" is not an IRI`);
    if (ids.has(id)) reject(`${where}: id "${id}" is used twice in the course structure`);
    ids.add(id);
    return id;
  };
  const claimObjectives = (node: OrderedNode, where: string) => {
    for (const list of named(node, 'objectives'))
      for (const objective of named(list, 'objective')) claim(attrs(objective).id, `${where}: an <objective>`);
  };
  const courses = named(root, 'course');
  if (courses.length !== 1) reject('<courseStructure> must hold exactly one <course>');
  const courseNode = courses[0]!;
  const courseId = claim(attrs(courseNode).id, '<course>');
  const course: Cmi5Course = {
    course_id: courseId,
    title: langText(courseNode, 'title', '<course>', true),
    description: langText(courseNode, 'description', '<course>', false),
    blocks: [],
    aus: [],
  };
  for (const list of named(root, 'objectives'))
    for (const objective of named(list, 'objective')) claim(attrs(objective).id, 'an <objective>');

  const visit = (container: OrderedNode, parent: string | null, depth: number): number => {
    if (depth > 20) reject('blocks are nested more than 20 deep');
    let units = 0;
    for (const child of childrenOf(container)) {
      const tag = tagOf(child);
      if (tag !== 'au' && tag !== 'block') continue;
      if (course.blocks.length + course.aus.length >= MAX_CMI5_NODES)
        reject(`the course has more than ${MAX_CMI5_NODES} blocks and AUs`);
      const where = `<${tag} id="${attrs(child).id ?? ''}">`;
      const id = claim(attrs(child).id, where);
      claimObjectives(child, where);
      const title = langText(child, 'title', where, true);
      const description = langText(child, 'description', where, false);
      if (tag === 'block') {
        course.blocks.push({ id, title, description, parent });
        if (visit(child, id, depth + 1) === 0) reject(`${where} holds no <au>`);
        units++;
        continue;
      }
      const a = attrs(child);
      const url = optionalText(child, 'url', where);
      if (url === null) reject(`${where} has no <url>`);
      checkAuUrl(url, where);
      let masteryScore: number | null = null;
      if (a.masteryScore !== undefined) {
        masteryScore = Number(a.masteryScore);
        if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(a.masteryScore) || masteryScore < 0 || masteryScore > 1)
          reject(`${where}: masteryScore="${a.masteryScore}" must be a decimal from 0 to 1`);
      }
      if (a.activityType !== undefined && !isIri(a.activityType))
        reject(`${where}: activityType="${a.activityType}" is not an IRI`);
      course.aus.push({
        id,
        title,
        description,
        parent,
        url,
        move_on: attributeEnum(a.moveOn, MOVE_ON, 'moveOn', where) ?? 'NotApplicable',
        mastery_score: masteryScore,
        launch_method: attributeEnum(a.launchMethod, LAUNCH_METHODS, 'launchMethod', where) ?? 'AnyWindow',
        launch_parameters: optionalText(child, 'launchParameters', where),
        entitlement_key: optionalText(child, 'entitlementKey', where),
        activity_type: a.activityType ?? null,
      });
      units++;
    }
    return units;
  };
  visit(root, null, 0);
  if (course.aus.length === 0) reject('the course has no <au>');
  return course;
}
