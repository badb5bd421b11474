import type { JobErrorCode } from "../domain.ts";
import { JobFailure } from "../jobs/job-failure.ts";

export interface SerializedError {
  message: string;
  code?: JobErrorCode;
  stack?: string;
}

/** Errors cross the process boundary as data; a JobFailure keeps its code. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof JobFailure) return { message: error.message, code: error.code };
  const e = error instanceof Error ? error : new Error(String(error));
  return { message: e.message, stack: e.stack };
}

export function deserializeError(error: SerializedError): Error {
  if (error.code) return new JobFailure(error.code, error.message);
  const e = new Error(error.message);
  if (error.stack) e.stack = error.stack;
  return e;
}
