import type { JobError, JobErrorCode } from "../domain.ts";

export const JOB_ERROR_TITLES: Record<JobErrorCode, string> = {
  BAD_INPUT: "Invalid input",
  TIMEOUT: "Timeout",
  INTERNAL_ERROR: "Internal error",
  CANCELLED: "Cancelled",
};

/** A failure that is the job's own (bad input, timeout): reported as is and never retried. */
export class JobFailure extends Error {
  readonly code: JobErrorCode;

  constructor(code: JobErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

const INTERNAL_MESSAGE = "Mixdown hit an unexpected error while running the job; retrying is advised.";

/** Normalises whatever a job threw into the job error shown to clients (never a stack trace). */
export function toJobError(error: unknown): JobError {
  if (error instanceof JobFailure) {
    return { code: error.code, title: JOB_ERROR_TITLES[error.code], message: error.message };
  }
  return { code: "INTERNAL_ERROR", title: JOB_ERROR_TITLES.INTERNAL_ERROR, message: INTERNAL_MESSAGE };
}
