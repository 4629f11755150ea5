/**
 * `npm run synth [-- cdk options]`: `cdk synth --quiet`, whose output (several lines per bundled
 * asset, some 270 in all) is kept back unless synth fails, when all of it is printed. On success
 * it prints CDK's warnings (e.g. a setting still at its local default) and one line saying where
 * the templates are and how long it took.
 */
import { spawn } from 'node:child_process';

const started = Date.now();
const args = ['cdk', 'synth', '--quiet', ...process.argv.slice(2)];
const child = spawn('npx', args, {
  env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const output: Buffer[] = [];
child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
child.on('close', (code, signal) => {
  const text = Buffer.concat(output).toString('utf8');
  if (code !== 0) {
    process.stderr.write(text);
    process.stderr.write(`\nnpx ${args.join(' ')} failed (${signal ?? `exit code ${code}`})\n`);
    process.exit(code ?? 1);
  }
  const warnings = text.split('\n').filter((line) => /^(WARNING |\[Warning at )/.test(line));
  if (warnings.length > 0) process.stderr.write(`${warnings.join('\n')}\n`);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(`Synthesized to cdk.out in ${seconds} s (npx ${args.join(' ')}).\n`);
});
