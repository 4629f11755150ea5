/** How modules, imports and player data are shown (the real bodies are not documented; wire-format §3.22). */
import { launchPath } from '../domain/module-package.ts';
import type { ModuleImportRecord } from '../db/entities/module-import.ts';
import type { TrainingModuleRecord } from '../db/entities/training-module.ts';
import { contentKey, modulesBucket } from '../storage/module-objects.ts';
import { presignedGetUrl } from '../storage/objects.ts';

/** Launch URLs are short-lived: a player opens them right away. */
export const LAUNCH_URL_SECONDS = 300;

export function importView(record: ModuleImportRecord) {
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
    created_by: record.created_by,
    created_date: record.created_date,
    completed_date: record.completed_date,
  };
}

export function moduleView(module: TrainingModuleRecord, imports: Map<number, ModuleImportRecord> = new Map()) {
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
    created_by: module.created_by,
    created_date: module.created_date,
    modified_date: module.modified_date,
  };
}

export function progressView(record: ModuleImportRecord) {
  return { importid: record.importid, moduleid: record.moduleid, status: record.status, stage: record.stage, percent: record.percent, error: record.error };
}

/** What a player needs: the launch file as a short-lived URL, and the launch parameters apart (they are not part of the signed URL). */
export async function playerView(record: ModuleImportRecord) {
  const manifest = record.manifest!;
  const path = launchPath(manifest.launch);
  const query = manifest.launch.includes('?') ? manifest.launch.slice(manifest.launch.indexOf('?')) : null;
  return {
    moduleid: record.moduleid,
    importid: record.importid,
    provider_version_number: record.provider_version_number,
    title: manifest.title,
    standard: manifest.standard,
    launch_url: path === null ? manifest.launch : await presignedGetUrl(modulesBucket(), contentKey(record.importid, path), LAUNCH_URL_SECONDS),
    launch_parameters: path === null ? null : query,
    expires_in: LAUNCH_URL_SECONDS,
  };
}
