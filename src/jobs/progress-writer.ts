/**
 * Writes a running job's progress to the store at most once per `intervalMs`, one write at a time, always the
 * latest value: modules may report every frame, the store sees about two writes a second per job.
 */
export class ProgressWriter {
  private latest: { progress: number; step: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing = false;
  private stopped = false;
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  private readonly write: (progress: number, step: string) => Promise<unknown>;
  private readonly onError: (error: unknown) => void;
  private readonly intervalMs: number;

  constructor(
    write: (progress: number, step: string) => Promise<unknown>,
    onError: (error: unknown) => void,
    intervalMs = 500,
  ) {
    this.write = write;
    this.onError = onError;
    this.intervalMs = intervalMs;
  }

  report(progress: number, step: string): void {
    if (this.stopped) return;
    this.latest = { progress, step };
    this.schedule();
  }

  /** No more writes (the job is ending: its outcome must not be followed by a progress write). */
  stop(): void {
    this.stopped = true;
    this.latest = undefined;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.timer || this.writing) return;
    const wait = Math.max(0, this.lastWriteAt + this.intervalMs - performance.now());
    this.timer = setTimeout(() => void this.flush(), wait);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const value = this.latest;
    this.latest = undefined;
    if (!value || this.stopped) return;
    this.writing = true;
    this.lastWriteAt = performance.now();
    try {
      await this.write(value.progress, value.step);
    } catch (error) {
      this.onError(error);
    } finally {
      this.writing = false;
      if (this.latest) this.schedule();
    }
  }
}
