/**
 * infra/local/parent-watchdog.mjs on its own (issue 23 item 10): where Linux's
 * `setpriv --pdeathsig` runs, the command it started dies with it even when the watchdog itself
 * is killed with SIGKILL; and closing its stdin (the parent gone) stops the command anyway.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../infra/local/data-dir-lock.ts';
import { waitUntil } from '../support/local-stack-process.ts';

const WATCHDOG = fileURLToPath(new URL('../../infra/local/parent-watchdog.mjs', import.meta.url));
const hasSetpriv = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true']).status === 0;

/** A watchdog running `sleep 60`, and the pid it prints (the sleep's). */
async function watchedSleep() {
  const watchdog = spawn(process.execPath, [WATCHDOG, 'sleep', '60'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: watchdog.stdout! }).once('line', resolve),
  );
  return { watchdog, command: Number(line) };
}

describe('parent watchdog', () => {
  it.skipIf(!hasSetpriv)('kill -9 on the watchdog ends its command too (setpriv --pdeathsig)', async () => {
    const { watchdog, command } = await watchedSleep();
    try {
      expect(isProcessAlive(command)).toBe(true);
      watchdog.kill('SIGKILL');
      await waitUntil(`command ${command} to end with its watchdog`, () => !isProcessAlive(command), 5000);
    } finally {
      if (isProcessAlive(command)) process.kill(command, 'SIGKILL');
    }
  });

  it('stops its command when its stdin closes (the parent is gone)', async () => {
    const { watchdog, command } = await watchedSleep();
    try {
      watchdog.stdin!.end();
      await waitUntil(`command ${command} to end`, () => !isProcessAlive(command), 10_000);
      expect(isProcessAlive(command)).toBe(false);
    } finally {
      if (isProcessAlive(command)) process.kill(command, 'SIGKILL');
    }
  });
});
