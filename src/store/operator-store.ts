/** A person who signs in to the dashboard (not an application: applications hold API keys). */
export interface Operator {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

/** A signed-in browser, found by the hash of its cookie. */
export interface OperatorSession {
  operator: Operator;
  csrfToken: string;
  lastSeenAt: number;
}

/**
 * Operators, their sessions, first-run setup links and failed sign-ins: everything the dashboard's sign-in
 * keeps, in the metadata database so every API node sees the same. Secrets arrive here already hashed.
 */
export interface OperatorStore {
  /** False when the name is taken. */
  createOperator(operator: Operator, passwordHash: string): Promise<boolean>;
  listOperators(): Promise<Operator[]>;
  countOperators(): Promise<number>;
  findOperator(name: string): Promise<{ operator: Operator; passwordHash: string } | undefined>;
  /** Replaces the password and ends the operator's sessions; false when there is no such operator. */
  setOperatorPassword(name: string, passwordHash: string, at: string): Promise<boolean>;
  /** Removes the operator and their sessions; false when there is none. */
  removeOperator(name: string): Promise<boolean>;

  /** Opens a session, and deletes those idle since before `idleSinceMs` (ended, never to be seen again). */
  createSession(
    idHash: string,
    operatorId: string,
    csrfToken: string,
    nowMs: number,
    idleSinceMs: number,
  ): Promise<void>;
  /**
   * The session, if it was seen after `idleSinceMs` (an older one is deleted); its last-seen time moves to
   * `nowMs` when it is older than `touchBeforeMs` (so a page view is not always a write).
   */
  findSession(
    idHash: string,
    times: { nowMs: number; idleSinceMs: number; touchBeforeMs: number },
  ): Promise<OperatorSession | undefined>;
  deleteSession(idHash: string): Promise<void>;

  createSetupToken(tokenHash: string, expiresAtMs: number): Promise<void>;
  /** True if the token exists and has not expired (it stays usable). */
  setupTokenValid(tokenHash: string, nowMs: number): Promise<boolean>;
  /** Deletes the token; true only for the one caller that found it unexpired (single use across nodes). */
  takeSetupToken(tokenHash: string, nowMs: number): Promise<boolean>;

  /** The latest time until which any of the subjects is blocked (0: none). */
  signInBlockedUntil(subjects: string[], nowMs: number): Promise<number>;
  /**
   * Counts a failed sign-in against each subject (counts older than `windowMs` start again, and stale
   * subjects are deleted) and sets the block `blockFor(failures)` returns; gives the latest block end.
   */
  recordSignInFailure(
    subjects: string[],
    nowMs: number,
    windowMs: number,
    blockFor: (failures: number) => number,
  ): Promise<number>;
  clearSignInFailures(subjects: string[]): Promise<void>;
}
