/** The operators' commands (`npm run export|import|migrate`) run as child processes, as an operator runs them. */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CommandRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `npm run --silent <script> -- ...args` from the repository root. */
export function runOperatorCommand(script: 'export' | 'import' | 'migrate', args: string[]): CommandRun {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    env: { ...process.env, LOG_LEVEL: 'ERROR' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}
