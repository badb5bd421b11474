/** Listeners told of something in this process (the embedded queue's job events wake the webhook deliverer). */
export function inProcessSignal() {
  const listeners = new Set<() => void>();
  return {
    emit: () => {
      for (const listener of listeners) listener();
    },
    watch: (listener: () => void) => {
      listeners.add(listener);
      return async () => void listeners.delete(listener);
    },
  };
}
