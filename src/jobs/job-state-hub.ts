import type { JobState } from "../domain.ts";
import type { JobQueue } from "../store/job-queue.ts";
import type { MetadataStore } from "../store/metadata-store.ts";

type Listener = (state: JobState) => void;

interface Watch {
  appId: string;
  listeners: Set<Listener>;
}

/**
 * Hands each change of a job's state to whoever on this node watches that job (its event streams). One queue
 * subscription serves them all (in distributed mode one LISTEN connection per node, not one per stream). When
 * the subscription may have missed changes (it reconnected), each watched job's state is read again.
 */
export class JobStateHub {
  private readonly watches = new Map<string, Watch>();
  private unsubscribe: (() => Promise<void>) | undefined;

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

  async close(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    this.watches.clear();
    await unsubscribe?.();
  }

  private dispatch(state: JobState | undefined): void {
    if (state) {
      const watch = this.watches.get(state.id);
      if (watch?.appId === state.appId) for (const listener of watch.listeners) listener(state);
      return;
    }
    for (const [jobId, watch] of this.watches) {
      Promise.resolve(this.store.getJobState(watch.appId, jobId)).then(
        (current) => current && this.dispatch(current),
        (error: Error) => this.onError(error),
      );
    }
  }
}
