/**
 * Progress on stderr for the operators' commands: a line redrawn in place when stderr is a
 * terminal, a plain line every `plainEveryMs` otherwise (logs of cron jobs and CI stay readable).
 */
export interface ProgressOptions {
  stream?: NodeJS.WriteStream;
  /** The current state as one line (without a line end). */
  describe: () => string;
  plainEveryMs?: number;
}

export interface ProgressDisplay {
  /** Draws once more and stops. */
  stop(): void;
}

export function startProgress(options: ProgressOptions): ProgressDisplay {
  const stream = options.stream ?? process.stderr;
  const interactive = stream.isTTY === true;
  const draw = () => {
    const line = options.describe();
    if (interactive) {
      const width = Math.max(20, (stream.columns || 100) - 1);
      stream.write(`\r\x1b[2K${line.slice(0, width)}`);
    } else {
      stream.write(`${new Date().toISOString()} ${line}\n`);
    }
  };
  const timer = setInterval(draw, interactive ? 250 : (options.plainEveryMs ?? 10_000));
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      draw();
      if (interactive) stream.write('\n');
    },
  };
}

/** A bar of `width` cells for a percentage. */
export function bar(percent: number, width = 24): string {
  const filled = Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent.toFixed(0).padStart(3)}%`;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
