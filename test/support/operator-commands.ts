/** The operators' commands (`npm run export|import|migrate`) run as child processes, as an operator runs them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CommandRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** SIGKILL to the command and everything it started: an operator's machine dying. */
  killAll(): void;
}

type OperatorScript =
  | 'export'
  | 'import'
  | 'migrate'
  | 'media:igi-backfill'
  | 'guides:category-index'
  | 'guides:summary-backfill';

const SCRIPTS: Record<string, string> = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).scripts;

/**
 * The file package.json's `<script>` runs: each is `tsx <file>`. The tests run that file in one
 * node with tsx's loader, as `npm run --silent <script>` ends up doing, without the two processes
 * before it (npm, the tsx command) that each cost a node start.
 */
export function operatorScriptFile(script: OperatorScript): string {
  const match = /^tsx (\S+\.ts)$/.exec(SCRIPTS[script] ?? '');
  if (!match) throw new Error(`package.json script ${script} is not \`tsx <file>\`: ${SCRIPTS[script]}`);
  return match[1]!;
}

/** `npm run --silent <script> -- ...args` from the repository root, in a process group of its own. */
export function runOperatorCommand(script: OperatorScript, args: string[]): CommandRun {
  const child = spawn(process.execPath, ['--import', 'tsx', operatorScriptFile(script), ...args], {
    env: { ...process.env, LOG_LEVEL: 'ERROR' },
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  const killAll = () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  };
  return { child, done, killAll };
}
