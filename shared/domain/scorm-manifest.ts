/**
 * SCORM 1.2 and 2004 (2nd, 3rd, 4th edition) imsmanifest.xml, without I/O: what a player needs
 * to run the package. Every organization and item (flattened in document order, each naming its
 * parent), each item's resource with its launch href (xml:base applied) and `parameters`, the 1.2
 * adlcp values (masteryscore, maxtimeallowed, timelimitaction, datafromlms, prerequisites), the
 * 2004 adlcp values (dataFromLMS, timeLimitAction, completionThreshold) and the sequencing a 2004
 * item or organization declares (imsss, adlseq; a sequencingCollection entry an IDRef names is
 * merged under the item's own), kept as data for the player's sequencer (decision 269).
 *
 * cmi5 and Tin Can packages are read in module-package.ts; this file is SCORM's alone.
 */
import { XMLParser } from 'fast-xml-parser';
import type * as z from 'zod/mini';
import { type ManifestFacts, type PackageStandard, PackageRejection } from './module-package.ts';

import type {
  objectiveSchema,
  rollupRuleSchema,
  ruleConditionSchema,
  ScormItem,
  ScormSequencing,
  ScormStructure,
  sequencingRuleSchema,
} from './scorm-structure.ts';

/** At most this many items (a package with more is not a course a learner could navigate). */
export const MAX_SCORM_ITEMS = 2_000;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) =>
    [
      'organization',
      'item',
      'resource',
      'file',
      'dependency',
      'langstring',
      'sequencing',
      'objective',
      'mapInfo',
      'preConditionRule',
      'exitConditionRule',
      'postConditionRule',
      'ruleCondition',
      'rollupRule',
      'rollupCondition',
    ].includes(name),
});

type Node = Record<string, any>;

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'object') {
    const node = value as Node;
    if ('#text' in node) return text(node['#text']);
    if ('langstring' in node) return text(node.langstring);
    if ('string' in node) return text(node.string);
  }
  return '';
}

function nodes(value: unknown): Node[] {
  if (value === undefined || value === null || value === '') return [];
  return (Array.isArray(value) ? value : [value]).filter((entry) => entry !== null && typeof entry === 'object');
}

function node(value: unknown): Node | undefined {
  if (Array.isArray(value)) return node(value[0]);
  if (value === '') return {};
  return value !== null && typeof value === 'object' ? (value as Node) : undefined;
}

function attribute(element: Node | undefined, ...names: string[]): string | undefined {
  if (!element) return undefined;
  for (const name of names) {
    const value = element[`@_${name}`];
    if (value !== undefined) return String(value).trim();
  }
  return undefined;
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return value === 'true' || value === '1';
}

function num(value: string | undefined, fallback: number, where: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new PackageRejection('manifest_invalid', `${where} is not a number: "${value}"`);
  return parsed;
}

function optionalNum(value: string | undefined, where: string): number | null {
  return value === undefined || value === '' ? null : num(value, 0, where);
}

function edition(schemaVersion: string, xml: string): ScormStructure['edition'] {
  const version = schemaVersion.toLowerCase().replace(/\s+/g, ' ');
  if (version === '1.2') return '1.2';
  if (version === 'cam 1.3' || version === '2004 2nd edition') return '2004 2nd Edition';
  if (version === '2004 3rd edition') return '2004 3rd Edition';
  if (version === '2004 4th edition') return '2004 4th Edition';
  if (version)
    throw new PackageRejection(
      'unsupported_version',
      `SCORM schema version "${schemaVersion}" is not supported (1.2, CAM 1.3, 2004 3rd and 4th Edition are)`,
    );
  // No declared version: the binding namespaces tell them apart.
  if (/adlcp_rootv1p2/i.test(xml)) return '1.2';
  if (/adlcp_v1p3|adlseq_v1p3|imsss/i.test(xml)) return '2004 3rd Edition';
  throw new PackageRejection(
    'unsupported_version',
    'The manifest declares no SCORM version and uses neither the 1.2 nor the 2004 namespaces',
  );
}

/**
 * A path a resource names, with its bases, must stay inside the package: no scheme (an external
 * URL is not package content), no leading slash, no `..` that climbs above the top.
 */
export function isPackagePath(path: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.startsWith('\\') || path.includes('\0'))
    return false;
  let depth = 0;
  for (const segment of path.split(/[?#]/)[0]!.split('/')) {
    if (segment === '..') depth--;
    else if (segment !== '.' && segment !== '') depth++;
    if (depth < 0) return false;
  }
  return true;
}

function ruleConditions(rule: Node): z.output<typeof ruleConditionSchema>[] {
  const container = node(rule.ruleConditions);
  return nodes(container?.ruleCondition).map((condition) => ({
    condition: attribute(condition, 'condition') ?? 'always',
    operator: attribute(condition, 'operator') === 'not' ? 'not' : 'noOp',
    referenced_objective: attribute(condition, 'referencedObjective') ?? null,
    measure_threshold: optionalNum(attribute(condition, 'measureThreshold'), 'measureThreshold'),
  }));
}

function sequencingRules(container: Node | undefined, name: string): z.output<typeof sequencingRuleSchema>[] {
  return nodes(container?.[name]).map((rule) => ({
    condition_combination: attribute(node(rule.ruleConditions), 'conditionCombination') === 'any' ? 'any' : 'all',
    conditions: ruleConditions(rule),
    action: attribute(node(rule.ruleAction), 'action') ?? '',
  }));
}

function objective(element: Node, primary: boolean): z.output<typeof objectiveSchema> {
  const measure = text(element.minNormalizedMeasure);
  return {
    objective_id: attribute(element, 'objectiveID') ?? null,
    primary,
    satisfied_by_measure: bool(attribute(element, 'satisfiedByMeasure'), false),
    min_normalized_measure: num(measure || undefined, 1, 'minNormalizedMeasure'),
    map_info: nodes(element.mapInfo).map((map) => ({
      target_objective_id: attribute(map, 'targetObjectiveID') ?? '',
      read_satisfied_status: bool(attribute(map, 'readSatisfiedStatus'), true),
      read_normalized_measure: bool(attribute(map, 'readNormalizedMeasure'), true),
      write_satisfied_status: bool(attribute(map, 'writeSatisfiedStatus'), false),
      write_normalized_measure: bool(attribute(map, 'writeNormalizedMeasure'), false),
    })),
  };
}

function readSequencing(element: Node): ScormSequencing {
  const controlMode = node(element.controlMode);
  const limits = node(element.limitConditions);
  const rollup = node(element.rollupRules);
  const objectives = node(element.objectives);
  const randomization = node(element.randomizationControls);
  const delivery = node(element.deliveryControls);
  const constrained = node(element.constrainedChoiceConsiderations);
  const considerations = node(element.rollupConsiderations);
  const rules = node(element.sequencingRules);
  const primary = node(objectives?.primaryObjective);
  const attemptLimit = attribute(limits, 'attemptLimit');
  const selectCount = attribute(randomization, 'selectCount');
  return {
    control_mode: controlMode
      ? {
          choice: bool(attribute(controlMode, 'choice'), true),
          choice_exit: bool(attribute(controlMode, 'choiceExit'), true),
          flow: bool(attribute(controlMode, 'flow'), false),
          forward_only: bool(attribute(controlMode, 'forwardOnly'), false),
          use_current_attempt_objective_info: bool(attribute(controlMode, 'useCurrentAttemptObjectiveInfo'), true),
          use_current_attempt_progress_info: bool(attribute(controlMode, 'useCurrentAttemptProgressInfo'), true),
        }
      : null,
    pre_condition_rules: sequencingRules(rules, 'preConditionRule'),
    exit_condition_rules: sequencingRules(rules, 'exitConditionRule'),
    post_condition_rules: sequencingRules(rules, 'postConditionRule'),
    limit_conditions: limits
      ? {
          attempt_limit: attemptLimit === undefined ? null : Math.trunc(num(attemptLimit, 0, 'attemptLimit')),
          attempt_absolute_duration_limit: attribute(limits, 'attemptAbsoluteDurationLimit') ?? null,
        }
      : null,
    rollup_rules: rollup
      ? {
          rollup_objective_satisfied: bool(attribute(rollup, 'rollupObjectiveSatisfied'), true),
          rollup_progress_completion: bool(attribute(rollup, 'rollupProgressCompletion'), true),
          objective_measure_weight: num(attribute(rollup, 'objectiveMeasureWeight'), 1, 'objectiveMeasureWeight'),
          rules: nodes(rollup.rollupRule).map((rule) => {
            const set = attribute(rule, 'childActivitySet') ?? 'all';
            const conditions = node(rule.rollupConditions);
            return {
              child_activity_set: (['all', 'any', 'none', 'atLeastCount', 'atLeastPercent'].includes(set)
                ? set
                : 'all') as z.output<typeof rollupRuleSchema>['child_activity_set'],
              minimum_count: Math.trunc(num(attribute(rule, 'minimumCount'), 0, 'minimumCount')),
              minimum_percent: num(attribute(rule, 'minimumPercent'), 0, 'minimumPercent'),
              condition_combination: attribute(conditions, 'conditionCombination') === 'all' ? 'all' : 'any',
              conditions: nodes(conditions?.rollupCondition).map((condition) => ({
                condition: attribute(condition, 'condition') ?? '',
                operator: attribute(condition, 'operator') === 'not' ? 'not' : 'noOp',
              })),
              action: attribute(node(rule.rollupAction), 'action') ?? '',
            };
          }),
        }
      : null,
    objectives: [
      ...(primary ? [objective(primary, true)] : []),
      ...nodes(objectives?.objective).map((entry) => objective(entry, false)),
    ],
    randomization: randomization
      ? {
          randomization_timing: attribute(randomization, 'randomizationTiming') ?? 'never',
          select_count: selectCount === undefined ? null : Math.trunc(num(selectCount, 0, 'selectCount')),
          reorder_children: bool(attribute(randomization, 'reorderChildren'), false),
          selection_timing: attribute(randomization, 'selectionTiming') ?? 'never',
        }
      : null,
    delivery_controls: delivery
      ? {
          tracked: bool(attribute(delivery, 'tracked'), true),
          completion_set_by_content: bool(attribute(delivery, 'completionSetByContent'), false),
          objective_set_by_content: bool(attribute(delivery, 'objectiveSetByContent'), false),
        }
      : null,
    constrained_choice: constrained
      ? {
          prevent_activation: bool(attribute(constrained, 'preventActivation'), false),
          constrain_choice: bool(attribute(constrained, 'constrainChoice'), false),
        }
      : null,
    rollup_considerations: considerations
      ? {
          required_for_satisfied: attribute(considerations, 'requiredForSatisfied') ?? 'always',
          required_for_not_satisfied: attribute(considerations, 'requiredForNotSatisfied') ?? 'always',
          required_for_completed: attribute(considerations, 'requiredForCompleted') ?? 'always',
          required_for_incomplete: attribute(considerations, 'requiredForIncomplete') ?? 'always',
          measure_satisfaction_if_active: bool(attribute(considerations, 'measureSatisfactionIfActive'), true),
        }
      : null,
  };
}

/** An element's own sequencing, on top of the collection entry its IDRef names (the element's own parts win). */
function sequencingOf(owner: Node, collection: Map<string, Node>): ScormSequencing | null {
  const own = nodes(owner.sequencing)[0];
  if (!own) return null;
  const idRef = attribute(own, 'IDRef');
  let base: Node | undefined;
  if (idRef) {
    base = collection.get(idRef);
    if (!base)
      throw new PackageRejection(
        'manifest_invalid',
        `A sequencing IDRef names "${idRef}", which is not in the collection`,
      );
  }
  return readSequencing({ ...(base ?? {}), ...own });
}

function completionThreshold(value: unknown): ScormItem['completion_threshold'] {
  if (value === undefined) return null;
  const element = node(value);
  const own = text(value);
  if (own) {
    // 3rd edition: the threshold is the element's value.
    return { completed_by_measure: true, min_progress_measure: num(own, 1, 'completionThreshold'), progress_weight: 1 };
  }
  if (!element) return null;
  return {
    completed_by_measure: bool(attribute(element, 'completedByMeasure'), false),
    min_progress_measure: num(attribute(element, 'minProgressMeasure'), 1, 'completionThreshold minProgressMeasure'),
    progress_weight: num(attribute(element, 'progressWeight'), 1, 'completionThreshold progressWeight'),
  };
}

function launchOf(href: string, parameters: string): string {
  if (!parameters) return href;
  // CAM: parameters beginning with '?' or '#' are appended as written; others join the query.
  if (parameters.startsWith('#')) return `${href}${parameters}`;
  const bare = parameters.startsWith('?') ? parameters.slice(1) : parameters;
  return `${href}${href.includes('?') ? '&' : '?'}${bare}`;
}

export function parseScormManifest(xml: string): ManifestFacts {
  const document = parser.parse(xml) as Node;
  const manifest = document.manifest as Node | undefined;
  if (!manifest || typeof manifest !== 'object')
    throw new PackageRejection('manifest_invalid', 'imsmanifest.xml has no <manifest> element');
  const schemaVersion = text(manifest.metadata?.schemaversion);
  const scormEdition = edition(schemaVersion, xml);
  const standard: PackageStandard = scormEdition === '1.2' ? 'scorm12' : 'scorm2004';
  const is2004 = standard === 'scorm2004';

  const resourcesNode = node(manifest.resources) ?? {};
  const resources = nodes(resourcesNode.resource);
  const byId = new Map(resources.map((resource) => [attribute(resource, 'identifier') ?? '', resource]));
  const organizationsNode = node(manifest.organizations) ?? {};
  const organizations = nodes(organizationsNode.organization);
  const collection = new Map(
    nodes(node(manifest.sequencingCollection)?.sequencing).map((entry) => [attribute(entry, 'ID') ?? '', entry]),
  );
  if (organizations.length === 0)
    throw new PackageRejection('manifest_invalid', 'imsmanifest.xml has no <organization>');
  const defaultId = attribute(organizationsNode, 'default');
  const defaultOrganization =
    organizations.find((org) => attribute(org, 'identifier') === defaultId) ?? organizations[0]!;

  const items: ScormItem[] = [];
  const visit = (children: Node[], organization: string, parent: string | null, depth: number) => {
    for (const element of children) {
      if (items.length >= MAX_SCORM_ITEMS)
        throw new PackageRejection('manifest_invalid', `The manifest has more than ${MAX_SCORM_ITEMS} items`);
      const identifier = attribute(element, 'identifier') ?? '';
      if (!identifier) throw new PackageRejection('manifest_invalid', 'An <item> has no identifier');
      const ref = attribute(element, 'identifierref') ?? null;
      const resource = ref === null ? undefined : byId.get(ref);
      if (ref !== null && !resource)
        throw new PackageRejection('launch_missing', `Item "${identifier}" names resource "${ref}", which is missing`);
      const rawHref = attribute(resource, 'href');
      if (resource && !rawHref)
        throw new PackageRejection('manifest_invalid', `Resource "${ref}" of item "${identifier}" has no href`);
      const href = rawHref
        ? [attribute(manifest, 'base'), attribute(resourcesNode, 'base'), attribute(resource, 'base'), rawHref]
            .filter(Boolean)
            .join('')
        : null;
      if (href !== null && !isPackagePath(href))
        throw new PackageRejection('unsafe_path', `Resource "${ref}" launches "${href}", outside the package`);
      const parameters = attribute(element, 'parameters') || null;
      const scormType = (attribute(resource, 'scormtype', 'scormType') ?? '').toLowerCase();
      const sequencing = is2004 ? sequencingOf(element, collection) : null;
      const primary = sequencing?.objectives.find((entry) => entry.primary);
      const masteryScore = is2004 ? null : optionalNum(text(element.masteryscore) || undefined, 'adlcp:masteryscore');
      if (masteryScore !== null && (masteryScore < 0 || masteryScore > 100))
        throw new PackageRejection('manifest_invalid', `adlcp:masteryscore of item "${identifier}" is not 0-100`);
      items.push({
        identifier,
        organization,
        parent,
        depth,
        title: text(element.title) || identifier,
        isvisible: bool(attribute(element, 'isvisible'), true),
        resource: ref,
        scorm_type: resource ? (scormType === 'asset' ? 'asset' : 'sco') : null,
        href,
        parameters,
        launch: href === null ? null : launchOf(href, parameters ?? ''),
        mastery_score: masteryScore,
        prerequisites: is2004 ? null : text(element.prerequisites) || null,
        max_time_allowed: is2004
          ? (sequencing?.limit_conditions?.attempt_absolute_duration_limit ?? null)
          : text(element.maxtimeallowed) || null,
        time_limit_action: (is2004 ? text(element.timeLimitAction) : text(element.timelimitaction)) || null,
        data_from_lms: (is2004 ? text(element.dataFromLMS) : text(element.datafromlms)) || null,
        completion_threshold: is2004 ? completionThreshold(element.completionThreshold) : null,
        scaled_passing_score: primary?.satisfied_by_measure ? primary.min_normalized_measure : null,
        sequencing,
      });
      visit(nodes(element.item), organization, identifier, depth + 1);
    }
  };
  const structure: ScormStructure = {
    edition: scormEdition,
    default_organization: attribute(defaultOrganization, 'identifier') ?? '',
    organizations: organizations.map((org) => {
      const identifier = attribute(org, 'identifier') ?? '';
      visit(nodes(org.item), identifier, null, 0);
      return {
        identifier,
        title: text(org.title) || identifier,
        objectives_global_to_system: bool(attribute(org, 'objectivesGlobalToSystem'), true),
        shared_data_global_to_system: bool(attribute(org, 'sharedDataGlobalToSystem'), true),
        sequencing: is2004 ? sequencingOf(org, collection) : null,
      };
    }),
    items,
  };

  const first = items.find((item) => item.organization === structure.default_organization && item.launch);
  if (!first)
    throw new PackageRejection(
      'manifest_invalid',
      'imsmanifest.xml names no launchable resource (an item pointing at a resource with an href)',
    );
  const title =
    text(defaultOrganization.title) ||
    text(manifest.metadata?.lom?.general?.title) ||
    String(attribute(manifest, 'identifier') ?? 'Untitled module');
  return {
    standard,
    identifier: attribute(manifest, 'identifier') ?? null,
    title,
    launch: first.launch!,
    schema_version: schemaVersion || null,
    scorm: structure,
  };
}
