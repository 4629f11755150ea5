import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkDependencies } from '../../infra/checks/dependencies.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A throwaway tree of files (path -> text) to show what the check refuses. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'stepwise-layering-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('layering (npm run deps:check)', () => {
  it('holds for the repository: no arrow runs up, no group imports another', () => {
    const { violations, edges } = checkDependencies(repoRoot);
    expect(violations).toEqual([]);
    expect(edges.length).toBeGreaterThan(50);
  });

  it('refuses a group importing another group, an arrow up inside shared, and I/O in shared/domain', () => {
    const root = tree({
      'infra/cdk/app.ts':
        "import { routes } from '../../functions/routes.ts';\nimport { x } from " +
        "'../../functions/guides/guides.service.ts';\n",
      'functions/routes.ts': "import { guideRoutes } from './guides/guides.routes.ts';\n",
      'functions/guides/guides.routes.ts': "import { list } from './guides.service.ts';\n",
      'functions/guides/guides.service.ts':
        "import { quizView } from '../quizzes/quiz-views.ts';\nimport { getGuide } from " +
        "'../../shared/db/entities/guide.ts';\n",
      'functions/quizzes/quiz-views.ts': 'export const quizView = 1;\n',
      'shared/db/entities/guide.ts':
        "import type { Caller } from '../../http/caller.ts';\nimport { rule } from '../../domain/rule.ts';\n",
      'shared/http/caller.ts': 'export type Caller = {};\n',
      'shared/domain/rule.ts':
        "import { readFileSync } from 'node:fs';\nimport type { GuideRecord } from " +
        "'../db/entities/guide.ts';\nimport { isIPv4 } from 'node:net';\n",
      'shared/gadgets/thing.ts': "import { rule } from '../domain/rule.ts';\n",
      'shared/views/x.ts': "import { list } from '../../functions/guides/guides.service.ts';\n",
    });
    const found = checkDependencies(root).violations.map((violation) => `${violation.from} -> ${violation.to}`);
    expect(found.sort()).toEqual(
      [
        'functions/guides/guides.service.ts -> functions/quizzes/quiz-views.ts',
        'infra/cdk/app.ts -> functions/guides/guides.service.ts',
        'shared/db/entities/guide.ts -> shared/http/caller.ts',
        'shared/domain/rule.ts -> node:fs',
        'shared/domain/rule.ts -> shared/db/entities/guide.ts',
        'shared/gadgets/thing.ts -> shared/domain/rule.ts',
        'shared/views/x.ts -> functions/guides/guides.service.ts',
      ].sort(),
    );
  });

  it("keeps infra's parts apart: cdk below the local stack, the commands and the checks, verify on top", () => {
    const root = tree({
      'infra/repo-paths.ts': 'export const REPO_ROOT = "";\n',
      'infra/cdk/stacks/a.ts':
        "import { REPO_ROOT } from '../../repo-paths.ts';\nimport { s } from '../../local/s.ts';\n",
      'infra/local/s.ts': "import { a } from '../cdk/stacks/a.ts';\nimport { m } from '../ops/m.ts';\n",
      'infra/ops/m.ts': 'export const m = 1;\n',
      'infra/verify/v.ts': "import { s } from '../local/s.ts';\nimport { a } from '../cdk/stacks/a.ts';\n",
      'infra/tools/t.ts': "import { m } from '../ops/m.ts';\n",
      'functions/routes.ts': 'export const routeGroups = [];\n',
      'shared/config.ts': 'export const config = {};\n',
    });
    const found = checkDependencies(root).violations.map((violation) => `${violation.from} -> ${violation.to}`);
    expect(found.sort()).toEqual(
      [
        'infra/cdk/stacks/a.ts -> infra/local/s.ts',
        'infra/local/s.ts -> infra/ops/m.ts',
        'infra/tools/t.ts -> infra/ops/m.ts',
      ].sort(),
    );
  });

  it('refuses an import between two folders of one rank, and a read (not a type) of shared/db in views', () => {
    const root = tree({
      'infra/cdk/app.ts': '',
      'functions/routes.ts': '',
      // content (rank 7) may build on training (rank 6); training and site-archive share rank 6.
      'shared/content/release.ts': "import { refresh } from '../training/refresh.ts';\n",
      'shared/training/refresh.ts': "import { bucket } from '../site-archive/keys.ts';\n",
      'shared/site-archive/keys.ts': 'export const bucket = 1;\n',
      // views take record types from db; a read function belongs to read-models.
      'shared/views/guide-views.ts':
        "import type { GuideRecord } from '../db/entities/guide.ts';\n" +
        "import { type StepRecord, type UserRecord as U } from '../db/entities/step.ts';\n" +
        "import { getUsers, type UserRecord } from '../db/entities/user.ts';\n",
      'shared/read-models/guides.ts':
        "import { getUsers } from '../db/entities/user.ts';\nimport { view } from '../views/guide-views.ts';\n",
      'shared/db/entities/guide.ts': 'export type GuideRecord = {};\n',
      'shared/db/entities/step.ts': 'export type StepRecord = {};\nexport type UserRecord = {};\n',
      'shared/db/entities/user.ts': 'export const getUsers = 1;\nexport type UserRecord = {};\n',
    });
    const found = checkDependencies(root).violations.map(
      (violation) => `${violation.from} -> ${violation.to}: ${violation.rule}`,
    );
    expect(found.sort()).toEqual(
      [
        'shared/training/refresh.ts -> shared/site-archive/keys.ts: ' +
          'an arrow between equals: shared/training and shared/site-archive share rank 6',
        'shared/views/guide-views.ts -> shared/db/entities/user.ts: ' +
          'shared/views imports only types from shared/db (reads live in shared/read-models)',
      ].sort(),
    );
  });
});
