/**
 * CPU time per request of each process on a measured path (decision 339): the caller (this
 * process: the raw loop or the load generator), the stack process (gateway, handlers, SDK) and
 * DynamoDB Local's JVM. Read from /proc (Linux); elsewhere only the caller's is known.
 * CPU per request moves far less with the machine's load than requests per second, and it says
 * which process bounds a path: on two cores a path cannot be faster than its busiest process
 * (one core each at most) nor than the sum of its processes' CPU over two cores.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in ticks of 10 ms. */
const TICK_MICROS = 10_000;

/** The process's CPU time so far (user + system), µs, or undefined where /proc cannot say. */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    // Fields after the command name (which may hold spaces, so split after its ")"): utime is
    // the 14th field of the line, stime the 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** The DynamoDB Local JVM a stack process started (a descendant named `java`), if /proc shows it. */
export function engineProcessOf(stackPid: number | undefined): number | undefined {
  if (!stackPid) return undefined;
  for (const child of childrenOf(stackPid)) {
    try {
      if (readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'java') return child;
    } catch {
      continue;
    }
    const deeper = engineProcessOf(child);
    if (deeper) return deeper;
  }
  return undefined;
}

export interface PathProcesses {
  /** The stack process, when the path goes through the gateway. */
  stack?: number;
  /** The DynamoDB Local JVM that answers the path's GetItem. */
  engine?: number;
}

/** µs of CPU per request; undefined where the process's time could not be read. */
export interface CpuPerRequest {
  caller: number;
  stack?: number;
  engine?: number;
}

interface Reading {
  caller: number;
  stack?: number;
  engine?: number;
}

function read(processes: PathProcesses): Reading {
  const own = process.cpuUsage();
  return {
    caller: own.user + own.system,
    stack: processCpuMicros(processes.stack),
    engine: processCpuMicros(processes.engine),
  };
}

/** Sums the CPU of a path's processes over its runs; `perRequest()` divides by the requests made. */
export class CpuMeter {
  private caller = 0;
  private stack: number | undefined = 0;
  private engine: number | undefined = 0;
  private requests = 0;

  constructor(private readonly processes: PathProcesses) {
    if (!processes.stack) this.stack = undefined;
    if (!processes.engine) this.engine = undefined;
  }

  /** Runs `run` (which resolves to the number of requests it made) and counts its CPU. */
  async measure<T extends { requests: number }>(run: () => Promise<T>): Promise<T> {
    const before = read(this.processes);
    const result = await run();
    const after = read(this.processes);
    this.caller += after.caller - before.caller;
    const delta = (from?: number, to?: number) => (from === undefined || to === undefined ? undefined : to - from);
    const stack = delta(before.stack, after.stack);
    const engine = delta(before.engine, after.engine);
    this.stack = this.stack === undefined || stack === undefined ? undefined : this.stack + stack;
    this.engine = this.engine === undefined || engine === undefined ? undefined : this.engine + engine;
    this.requests += result.requests;
    return result;
  }

  perRequest(): CpuPerRequest {
    const per = (micros?: number) => (micros === undefined ? undefined : micros / Math.max(1, this.requests));
    return { caller: this.caller / Math.max(1, this.requests), stack: per(this.stack), engine: per(this.engine) };
  }
}

/** `caller / stack / engine` in µs, `-` for what could not be read. */
export function formatCpu(cpu: CpuPerRequest): string {
  const show = (micros?: number) => (micros === undefined ? '-' : String(Math.round(micros)));
  return `${show(cpu.caller)} / ${show(cpu.stack)} / ${show(cpu.engine)}`;
}

/**
 * Requests per second a path's CPU allows on `cores` otherwise idle cores: no faster than its
 * busiest single-threaded process (the caller, the stack's event loop: one core each at most),
 * nor than all its processes' CPU spread over the cores (DynamoDB Local's JVM is multi-threaded,
 * so only this second bound holds for it). Undefined if a process's time is unknown.
 */
export function cpuBoundRate(cpu: CpuPerRequest, cores: number, throughStack: boolean): number | undefined {
  if (cpu.engine === undefined || (throughStack && cpu.stack === undefined)) return undefined;
  const singleThreaded = throughStack ? [cpu.caller, cpu.stack!] : [cpu.caller];
  const total = singleThreaded.reduce((sum, micros) => sum + micros, 0) + cpu.engine;
  return Math.min(...singleThreaded.map((micros) => 1e6 / micros), (cores * 1e6) / total);
}

/** The gateway ratio the CPU figures predict on idle cores (the measured one adds the neighbours). */
export function cpuBoundRatio(raw: CpuPerRequest, gateway: CpuPerRequest, cores: number): string {
  const rawRate = cpuBoundRate(raw, cores, false);
  const gatewayRate = cpuBoundRate(gateway, cores, true);
  return rawRate && gatewayRate ? (gatewayRate / rawRate).toFixed(2) : '-';
}
