/** How modules, imports and player data are shown (the real bodies are not documented; docs/wire-fidelity.md §3.22). */
import * as z from 'zod/mini';
import { actorUserid } from '../domain/caller.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import { launchPath, normalizedPackagePath } from '../domain/package-paths.ts';
import { type ScormItem, tableOfContents } from '../domain/scorm-structure.ts';
import { nowSeconds } from '../clock.ts';
import { launchStateSchema } from './module-attempt-views.ts';
import { CONTENT_TOKEN_SECONDS, contentFileUrl } from '../storage/module-content.ts';
import type { ModuleImportRecord } from '../db/entities/module-import.ts';
import { MODULE_IMPORT_STAGES, MODULE_IMPORT_STATUSES } from '../domain/import-statuses.ts';
import type { TrainingModuleRecord } from '../db/entities/training-module.ts';

const nullableInt = z.nullable(z.int());

/** One import (a version of a module) and how far it got. */
export const moduleImportSchema = z.object({
  id: z.int(),
  importid: z.int(),
  moduleid: z.int(),
  provider_version_number: z.int(),
  status: z.enum(MODULE_IMPORT_STATUSES),
  stage: z.enum(MODULE_IMPORT_STAGES),
  percent: z.number(),
  source: z.nullable(z.enum(['upload', 'url'])),
  url: z.nullable(z.string()),
  size: nullableInt,
  title: z.nullable(z.string()),
  standard: z.nullable(z.string()),
  identifier: z.nullable(z.string()),
  launch: z.nullable(z.string()),
  schema_version: z.nullable(z.string()),
  repaired: z.boolean(),
  file_count: nullableInt,
  extracted_bytes: nullableInt,
  error: z.nullable(z.object({ code: z.string(), message: z.string() })),
  /** null when a site API token started it, named by created_by_token (decision 260). */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(actingTokenSchema),
  created_date: z.int(),
  completed_date: nullableInt,
});

/** start/byUpload: the import plus where to POST the package. */
export const moduleUploadStartSchema = z.extend(moduleImportSchema, {
  upload: z.object({ url: z.string(), fields: z.record(z.string(), z.string()), expires: z.int(), max_bytes: z.int() }),
});

/** A module with its current and draft versions. */
export const moduleSchema = z.object({
  id: z.int(),
  moduleid: z.int(),
  title: z.string(),
  current_importid: nullableInt,
  draft_importid: nullableInt,
  current: z.nullable(moduleImportSchema),
  draft: z.nullable(moduleImportSchema),
  /** null when a site API token made it, named by created_by_token (decision 260). */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(actingTokenSchema),
  created_date: z.int(),
  modified_date: z.int(),
});

/** GET …/imports/{importid}/progress. */
export const moduleImportProgressSchema = z.object({
  importid: z.int(),
  moduleid: z.int(),
  status: moduleImportSchema.shape.status,
  stage: moduleImportSchema.shape.stage,
  percent: z.number(),
  error: moduleImportSchema.shape.error,
});

/** One item of a SCORM package's table of contents, with what the runtime is given when it launches. */
export const scoSchema = z.object({
  identifier: z.string(),
  title: z.string(),
  parent: z.nullable(z.string()),
  depth: z.int(),
  isvisible: z.boolean(),
  scorm_type: z.nullable(z.enum(['sco', 'asset'])),
  launch: z.nullable(z.string()),
  mastery_score: z.nullable(z.number()),
  scaled_passing_score: z.nullable(z.number()),
  completion_threshold: z.nullable(z.number()),
  max_time_allowed: z.nullable(z.string()),
  time_limit_action: z.nullable(z.string()),
  data_from_lms: z.nullable(z.string()),
});

/** What a player opens (GET …/player, …/imports/{importid}/preview). */
export const modulePlayerSchema = z.object({
  moduleid: z.int(),
  importid: z.int(),
  provider_version_number: z.int(),
  title: z.string(),
  standard: z.string(),
  launch_url: z.string(),
  launch_parameters: z.nullable(z.string()),
  /** The package's top on the content origin (a SCO's `launch` is relative to it); null for an absolute launch. */
  content_base_url: z.nullable(z.string()),
  /** Seconds the URLs open the package's files. */
  expires_in: z.int(),
  /** SCORM: the edition the manifest declares ('1.2', '2004 2nd Edition', ...); null for other standards. */
  scorm_edition: z.nullable(z.string()),
  /** SCORM: the default organization's items in order (groups too: `launch` null), what a table of contents shows. */
  scos: z.array(scoSchema),
  /** SCORM: the caller's attempt this launch continues, each SCO's entry and initial CMI data; null in a preview. */
  attempt: z.nullable(launchStateSchema),
});

export const moduleListSchema = z.object({ modules: z.array(moduleSchema) });
export const moduleDraftListSchema = z.object({ drafts: z.array(moduleSchema) });
export const moduleImportListSchema = z.object({ imports: z.array(moduleImportSchema) });
export const moduleUsageSchema = z.object({
  usage: z.array(z.object({ doctype: z.literal('course'), wikiid: z.int(), title: z.string() })),
});

export type ModuleImportView = z.output<typeof moduleImportSchema>;
export type ModuleView = z.output<typeof moduleSchema>;
export type ModuleImportProgress = z.output<typeof moduleImportProgressSchema>;
export type ModulePlayerView = z.output<typeof modulePlayerSchema>;

export function importView(record: ModuleImportRecord): ModuleImportView {
  return {
    id: record.importid,
    importid: record.importid,
    moduleid: record.moduleid,
    provider_version_number: record.provider_version_number,
    status: record.status,
    stage: record.stage,
    percent: record.percent,
    source: record.source,
    url: record.url,
    size: record.size,
    title: record.manifest?.title ?? null,
    standard: record.manifest?.standard ?? null,
    identifier: record.manifest?.identifier ?? null,
    launch: record.manifest?.launch ?? null,
    schema_version: record.manifest?.schema_version ?? null,
    repaired: record.repaired,
    file_count: record.file_count,
    extracted_bytes: record.extracted_bytes,
    error: record.error,
    created_by: actorUserid(record.created_by),
    ...actingTokenView('created_by', record.created_by_token),
    created_date: record.created_date,
    completed_date: record.completed_date,
  };
}

export function moduleView(
  module: TrainingModuleRecord,
  imports: Map<number, ModuleImportRecord> = new Map(),
): ModuleView {
  const summary = (importid: number | null) => {
    const found = importid === null ? undefined : imports.get(importid);
    return found ? importView(found) : null;
  };
  return {
    id: module.moduleid,
    moduleid: module.moduleid,
    title: module.title,
    current_importid: module.current_importid,
    draft_importid: module.draft_importid,
    current: summary(module.current_importid),
    draft: summary(module.draft_importid),
    created_by: actorUserid(module.created_by),
    ...actingTokenView('created_by', module.created_by_token),
    created_date: module.created_date,
    modified_date: module.modified_date,
  };
}

export function progressView(record: ModuleImportRecord): ModuleImportProgress {
  return {
    importid: record.importid,
    moduleid: record.moduleid,
    status: record.status,
    stage: record.stage,
    percent: record.percent,
    error: record.error,
  };
}

/**
 * What a player needs: the launch file on the content origin with a launch-scoped token in its path (decision 270; its
 * relative assets carry the token too), the launch parameters apart, and the SCO list.
 */
export async function playerView(
  record: ModuleImportRecord,
  attempt: z.output<typeof launchStateSchema> | null = null,
  now = nowSeconds(),
): Promise<ModulePlayerView> {
  const manifest = record.manifest!;
  const path = launchPath(manifest.launch);
  const query = manifest.launch.includes('?') ? manifest.launch.slice(manifest.launch.indexOf('?')) : null;
  const grant = { importid: record.importid, expires: now + CONTENT_TOKEN_SECONDS };
  const launchUrl =
    path === null ? manifest.launch : await contentFileUrl(grant, `${normalizedPackagePath(path)}${query ?? ''}`);
  const contentBaseUrl = path === null ? null : await contentFileUrl(grant, '');
  return {
    moduleid: record.moduleid,
    importid: record.importid,
    provider_version_number: record.provider_version_number,
    title: manifest.title,
    standard: manifest.standard,
    launch_url: launchUrl,
    launch_parameters: path === null ? null : query,
    content_base_url: contentBaseUrl,
    expires_in: CONTENT_TOKEN_SECONDS,
    scorm_edition: manifest.scorm?.edition ?? null,
    scos: manifest.scorm ? tableOfContents(manifest.scorm).map(scoView) : [],
    attempt,
  };
}

function scoView(item: ScormItem): z.output<typeof scoSchema> {
  const threshold = item.completion_threshold;
  return {
    identifier: item.identifier,
    title: item.title,
    parent: item.parent,
    depth: item.depth,
    isvisible: item.isvisible,
    scorm_type: item.scorm_type,
    launch: item.launch,
    mastery_score: item.mastery_score,
    scaled_passing_score: item.scaled_passing_score,
    completion_threshold: threshold?.completed_by_measure ? threshold.min_progress_measure : null,
    max_time_allowed: item.max_time_allowed,
    time_limit_action: item.time_limit_action,
    data_from_lms: item.data_from_lms,
  };
}
