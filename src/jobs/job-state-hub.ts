import type { JobState } from "../domain.ts";
import type { JobQueue } from "../store/job-queue.ts";
import type { MetadataStore } from "../store/metadata-store.ts";

/** A new state of the job, or "gone" once it has been deleted. */
type Listener = (state: JobState | "gone") => void;

/** Watched jobs are read again this often: a job deleted (or a change missed) on another node shows by then. */
const RECHECK_MS = 15_000;

interface Watch {
  appId: string;
  listeners: Set<Listener>;
}

/**
 * Hands each change of a job's state to whoever on this node watches that job (its event streams). One queue
 * subscription serves them all (in distributed mode one LISTEN connection per node, not one per stream). When
 * the subscription may have missed changes (it reconnected), and every 15 s, each watched job's state is read again:
 * a deleted job's watchers are told it is gone.
 */
export class JobStateHub {
  private readonly watches = new Map<string, Watch>();
  private unsubscribe: (() => Promise<void>) | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;

  private readonly queue: JobQueue;
  private readonly store: MetadataStore;
  private readonly onError: (error: Error) => void;

  constructor(queue: JobQueue, store: MetadataStore, onError: (error: Error) => void) {
    this.queue = queue;
    this.store = store;
    this.onError = onError;
  }

  /** Calls `listener` with every new state of the job from now on; returns a function that stops. */
  watch(appId: string, jobId: string, listener: Listener): () => void {
    this.unsubscribe ??= this.queue.watchStates((state) => this.dispatch(state), this.onError);
    this.recheckTimer ??= setInterval(() => this.recheck(), RECHECK_MS).unref();
    let watch = this.watches.get(jobId);
    if (!watch) {
      watch = { appId, listeners: new Set() };
      this.watches.set(jobId, watch);
    }
    watch.listeners.add(listener);
    return () => {
      watch.listeners.delete(listener);
      if (watch.listeners.size === 0 && this.watches.get(jobId) === watch) this.watches.delete(jobId);
    };
  }

  /** Number of jobs watched on this node. */
  get size(): number {
    return this.watches.size;
  }

  /** The job was deleted (on this node): its watchers are told at once. */
  gone(jobId: string): void {
    const watch = this.watches.get(jobId);
    this.watches.delete(jobId);
    for (const listener of watch?.listeners ?? []) listener("gone");
  }

  async close(): Promise<void> {
    clearInterval(this.recheckTimer);
    this.recheckTimer = undefined;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    this.watches.clear();
    await unsubscribe?.();
  }

  private dispatch(state: JobState | undefined): void {
    if (!state) {
      this.recheck();
      return;
    }
    const watch = this.watches.get(state.id);
    if (watch?.appId === state.appId) for (const listener of watch.listeners) listener(state);
  }

  /** Reads every watched job's state again: changes are handed on (listeners drop repeats), deletions told. */
  private recheck(): void {
    for (const [jobId, watch] of this.watches) {
      Promise.resolve(this.store.getJobState(watch.appId, jobId)).then(
        (current) => (current ? this.dispatch(current) : this.gone(jobId)),
        (error: Error) => this.onError(error),
      );
    }
  }
}
