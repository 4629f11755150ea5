/**
 * Bench section (--all only): the hostile images of issue 23 (test/support/image-bombs.ts) sent
 * through each way in: POST /user/media/images?file=, POST /user/media/uploads, and a browser
 * upload (presigned POST, then processing). Prints the time to refusal and the peak resident
 * memory of the stack process, and of its image children (decision 162) beside it, sampled
 * every 20 ms from /proc. Then three SVG uploads at once, as in the report (before: 500 after
 * 29 s each, and 213 MB -> 2.5 GB), and three accepted 49 MP PNGs at once (the concurrency bound).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RunningStack } from '../support/local-stack-process.ts';
import { type ImageBomb, imageBombs, solidPng } from '../support/image-bombs.ts';

function residentMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The stack's image children: its child processes running image-child. */
function imageChildren(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('image-child')) {
        pids.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function watchMemory(pid: number) {
  let stackPeak = residentMb(pid);
  let childrenPeak = 0;
  const sample = () => {
    stackPeak = Math.max(stackPeak, residentMb(pid));
    childrenPeak = Math.max(
      childrenPeak,
      imageChildren(pid).reduce((sum, child) => sum + residentMb(child), 0),
    );
  };
  const timer = setInterval(sample, 20);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { stackPeak, childrenPeak };
    },
  };
}

type Way = 'images' | 'uploads' | 'browser';

/** Sends one bomb one way; answers what the API said (status, or the item's failure) when refused. */
async function send(stack: RunningStack, token: string, way: Way, bomb: ImageBomb): Promise<string> {
  const headers = { authorization: `api ${token}` };
  if (way !== 'browser') {
    const path = way === 'images' ? '/user/media/images' : '/user/media/uploads';
    const response = await fetch(`${stack.url}${path}?file=${encodeURIComponent(bomb.filename)}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/octet-stream' },
      body: bomb.bytes,
    });
    const body = (await response.json()) as { errors?: Array<{ code: string }> };
    return `${response.status} ${body.errors?.[0]?.code ?? ''}`;
  }
  const started = await fetch(`${stack.url}/user/media/uploads/presigned`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ filename: bomb.filename, content_type: bomb.contentType }),
  });
  const target = (await started.json()) as { id: number; upload: { url: string; fields: Record<string, string> } };
  const form = new FormData();
  for (const [name, value] of Object.entries(target.upload.fields)) form.append(name, value);
  form.append('file', new Blob([bomb.bytes], { type: bomb.contentType }), bomb.filename);
  await fetch(target.upload.url, { method: 'POST', body: form });
  for (;;) {
    const read = await fetch(`${stack.url}/user/media/GuideImage/${target.id}`, { headers });
    const item = (await read.json()) as { status: string; failure: string | null };
    if (item.status === 'failed') return `failed: ${item.failure}`;
    if (item.status === 'ready') return 'READY (not refused)';
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function mediaBombsBench(stack: RunningStack, token: string): Promise<void> {
  const pid = stack.child.pid!;
  const bombs = await imageBombs();
  console.log('\nMedia bombs (issue 23): time to refusal, peak RSS of the stack process and of its image children');
  console.log(
    `${'image'.padEnd(24)}${'way in'.padEnd(10)}${'answer'.padEnd(44)}${'ms'.padStart(7)}` +
      `${'stack MB'.padStart(10)}${'children MB'.padStart(13)}`,
  );
  const row = (
    name: string,
    way: string,
    answer: string,
    ms: number,
    memory: ReturnType<ReturnType<typeof watchMemory>['stop']>,
  ) =>
    console.log(
      `${name.padEnd(24)}${way.padEnd(10)}${answer.slice(0, 42).padEnd(44)}${ms.toFixed(0).padStart(7)}` +
        `${memory.stackPeak.toFixed(0).padStart(10)}${memory.childrenPeak.toFixed(0).padStart(13)}`,
    );
  for (const bomb of bombs) {
    for (const way of ['images', 'uploads', 'browser'] as const) {
      const memory = watchMemory(pid);
      const started = performance.now();
      const answer = await send(stack, token, way, bomb);
      row(bomb.name, way, answer, performance.now() - started, memory.stop());
    }
  }
  // As reported: three SVG uploads at once.
  const memory = watchMemory(pid);
  const started = performance.now();
  const answers = await Promise.all([0, 1, 2].map(() => send(stack, token, 'images', bombs[0]!)));
  row('3 x SVG at once', 'images', answers.join(', '), performance.now() - started, memory.stop());
  // Work that is accepted: three 49 MP PNGs at once (two decode, one waits for a slot).
  const accepted: ImageBomb = {
    ...bombs[1]!,
    name: 'PNG 7000x7000',
    filename: 'fine.png',
    bytes: solidPng(7000, 7000),
  };
  const acceptedMemory = watchMemory(pid);
  const acceptedStart = performance.now();
  const acceptedAnswers = await Promise.all([0, 1, 2].map(() => send(stack, token, 'images', accepted)));
  row(
    '3 x PNG 7000² at once',
    'images',
    acceptedAnswers.join(', '),
    performance.now() - acceptedStart,
    acceptedMemory.stop(),
  );
  console.log(`stack RSS after the section: ${residentMb(pid).toFixed(0)} MB`);
}
