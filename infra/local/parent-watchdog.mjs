/**
 * Runs a command (DynamoDB Local's JVM) so that it ends when the process that started it ends,
 * however that process ends (kill -9 included): `node parent-watchdog.mjs <command> [args...]`
 * with stdin a pipe from the parent. Node cannot set PR_SET_PDEATHSIG, but the kernel closes
 * the parent's end of the pipe when it dies; stdin then reaches EOF and the command is stopped
 * (SIGTERM, SIGKILL after STOP_GRACE_MS). Closing the pipe is also the parent's way to stop it.
 *
 * The command must also end when the watchdog itself is killed (kill -9 on the watchdog alone
 * leaves the JVM running, on files a later stack would open too: issue 23 item 10). Where Linux's
 * `setpriv --pdeathsig` exists, the command is started through it: the kernel sends it SIGKILL
 * when the watchdog dies, however it dies. Elsewhere the stack's stop and the data-dir lock end
 * a surviving JVM by its pid (dynamodb.ts, data-dir-lock.ts).
 *
 * Prints the command's pid on stdout (one line) and exits with the command's exit status.
 * Plain JavaScript on purpose: it starts with a bare `node`, no TypeScript loader.
 */
import { spawn, spawnSync } from 'node:child_process';
import { constants, platform } from 'node:os';

const STOP_GRACE_MS = 3000;
const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node parent-watchdog.mjs <command> [args...]');
  process.exit(2);
}

/** `setpriv --pdeathsig KILL --` when it works here (it execs the command: the pid stays the command's). */
function deathSignalPrefix() {
  // Tests turn it off to prove the other layers (a platform without setpriv behaves so).
  if (platform() !== 'linux' || process.env.STEPWISE_WATCHDOG_NO_PDEATHSIG === '1') return [];
  const probe = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5000 });
  return probe.status === 0 ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [];
}

const [program, ...programArgs] = [...deathSignalPrefix(), command, ...args];
// The command's stderr is ours: a JVM that cannot start says why there (dynamodb.ts reads it).
const child = spawn(program, programArgs, { stdio: ['ignore', 'ignore', 'inherit'] });
child.once('error', (error) => {
  console.error(`parent-watchdog: cannot run ${command}: ${error.message}`);
  process.exit(127);
});
child.once('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
// The parent may be gone by the time this is flushed; that must not end the watchdog.
process.stdout.on('error', () => undefined);
if (child.pid !== undefined) process.stdout.write(`${child.pid}\n`);

let stopping = false;
function stopChild() {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS).unref();
}

// The parent's end of the pipe closed: it exited, crashed or was killed.
process.stdin.on('end', stopChild).on('close', stopChild).on('error', stopChild).resume();
// Signals to the watchdog itself (Ctrl-C reaches the whole process group, or a plain kill).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stopChild);
