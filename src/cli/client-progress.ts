import type { TransferProgress } from "../../sdk/src/index.ts";
import { formatBytes, formatDuration } from "./client-common.ts";

type Out = NodeJS.WriteStream;

/**
 * A transfer progress bar on stderr: redrawn in place on a terminal (bytes, rate, ETA); on a pipe or file,
 * plain lines only (one every 10 s for long transfers, one at the end), never control characters.
 */
export class ProgressBar {
  private readonly label: string;
  private readonly out: Out;
  private readonly enabled: boolean;
  private readonly started = Date.now();
  private lastDraw = 0;
  private last: TransferProgress = { loaded: 0, total: null };

  constructor(label: string, options: { enabled: boolean; out?: Out }) {
    this.label = label;
    this.out = options.out ?? process.stderr;
    this.enabled = options.enabled;
  }

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  update = (progress: TransferProgress): void => {
    this.last = progress;
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < (this.tty ? 100 : 10_000)) return;
    this.lastDraw = now;
    if (this.tty) this.out.write(`\r\x1b[2K${this.line(now)}`);
    else if (now - this.started >= 10_000) this.out.write(`${this.line(now)}\n`);
  };

  /** Ends the bar with a summary line (size, time, mean rate). */
  done(): void {
    if (!this.enabled) return;
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? this.last.loaded / seconds : 0;
    const summary = `${this.label} ${formatBytes(this.last.loaded)} in ${seconds.toFixed(1)} s (${formatBytes(rate)}/s)`;
    this.out.write(this.tty ? `\r\x1b[2K${summary}\n` : `${summary}\n`);
  }

  private line(now: number): string {
    const { loaded, total } = this.last;
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? loaded / seconds : 0;
    if (total === null || total === 0) return `${this.label} ${formatBytes(loaded)}  ${formatBytes(rate)}/s`;
    const fraction = Math.min(1, loaded / total);
    const width = 24;
    const filled = Math.round(fraction * width);
    const bar = this.tty ? `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ` : "";
    const eta = rate > 0 ? formatDuration((total - loaded) / rate) : "--:--";
    return `${this.label} ${bar}${(fraction * 100).toFixed(0).padStart(3)}%  ${formatBytes(loaded)}/${formatBytes(total)}  ${formatBytes(rate)}/s  ETA ${eta}`;
  }
}

/**
 * The job's status and progress, live: one line redrawn with the elapsed time on a terminal; otherwise a line per
 * status change and per quarter of progress.
 */
export class StatusLine {
  private readonly jobId: string;
  private readonly out: Out;
  private readonly enabled: boolean;
  private readonly started = Date.now();
  private status = "";
  private progress: { fraction: number; step: string | null } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(jobId: string, options: { enabled: boolean; out?: Out }) {
    this.jobId = jobId;
    this.out = options.out ?? process.stderr;
    this.enabled = options.enabled;
    if (this.enabled && this.out.isTTY) this.timer = setInterval(() => this.draw(), 250);
  }

  set = (status: string): void => {
    if (!this.enabled || status === this.status) return;
    this.status = status;
    if (this.out.isTTY) this.draw();
    else this.out.write(`job ${this.jobId} ${status}\n`);
  };

  setProgress = (fraction: number, step: string | null): void => {
    if (!this.enabled) return;
    const quarter = Math.floor(fraction * 4);
    const shown = this.progress ? Math.floor(this.progress.fraction * 4) : 0;
    this.progress = { fraction, step };
    if (!this.out.isTTY && this.status === "STARTED" && quarter > shown && fraction < 1) {
      this.out.write(`job ${this.jobId} ${this.percent()}\n`);
    }
  };

  stop(): void {
    clearInterval(this.timer);
    if (this.enabled && this.out.isTTY && this.status) this.out.write(`\r\x1b[2K${this.text()}\n`);
  }

  private percent(): string {
    if (!this.progress) return "";
    const { fraction, step } = this.progress;
    return `${Math.round(fraction * 100)}%${step ? ` (${step})` : ""}`;
  }

  private text(): string {
    const progress = this.status === "STARTED" && this.progress ? ` ${this.percent()}` : "";
    return `job ${this.jobId} ${this.status}${progress} ${formatDuration((Date.now() - this.started) / 1000)}`;
  }

  private draw(): void {
    if (this.status) this.out.write(`\r\x1b[2K${this.text()}`);
  }
}
