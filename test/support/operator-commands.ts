/** The operators' commands (`npm run export|import|migrate`) run as child processes, as an operator runs them. */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CommandRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** SIGKILL to the command and everything it started (npm, the shell, node): an operator's machine dying. */
  killAll(): void;
}

/** `npm run --silent <script> -- ...args` from the repository root, in a process group of its own. */
export function runOperatorCommand(
  script: 'export' | 'import' | 'migrate' | 'media:igi-backfill' | 'guides:category-index' | 'guides:summary-backfill',
  args: string[],
): CommandRun {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
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
