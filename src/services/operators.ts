import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Operator, OperatorSession, OperatorStore } from "../store/operator-store.ts";
import { DUMMY_HASH, hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";

export const SETUP_LINK_TTL_MS = 15 * 60 * 1000;
/** Failed sign-ins allowed per account and per address before each further attempt must wait. */
export const FREE_ATTEMPTS = 5;
const FAILURE_WINDOW_MS = 60 * 60 * 1000;
/** The wait after the 5th failure, doubled by every further one, up to a quarter of an hour. */
const FIRST_BLOCK_MS = 15_000;
const MAX_BLOCK_MS = 15 * 60 * 1000;
/** A session's last-seen time is written at most this often. */
const TOUCH_EVERY_MS = 60_000;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const randomToken = () => randomBytes(32).toString("base64url");

export class OperatorError extends Error {}

export type SignInOutcome = { ok: true; sessionId: string; operator: Operator } | { ok: false; retryAfterMs?: number };

/** Operator accounts, sign-in sessions, first-run setup links and sign-in throttling. */
export class OperatorService {
  private readonly store: OperatorStore;
  private readonly idleMs: number;

  constructor(store: OperatorStore, options: { sessionIdleMs: number }) {
    this.store = store;
    this.idleMs = options.sessionIdleMs;
  }

  static nameProblem(name: string): string | undefined {
    if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(name))
      return "the name must be 1–64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit";
    return undefined;
  }

  async add(name: string, password: string): Promise<Operator> {
    const problem = OperatorService.nameProblem(name) ?? passwordProblem(password);
    if (problem) throw new OperatorError(problem);
    const now = new Date().toISOString();
    const operator: Operator = { id: randomUUID(), name, createdAt: now, updatedAt: now };
    if (!(await this.store.createOperator(operator, await hashPassword(password))))
      throw new OperatorError(`an operator named "${name}" already exists`);
    return operator;
  }

  list(): Promise<Operator[]> {
    return this.store.listOperators();
  }

  async exist(): Promise<boolean> {
    return (await this.store.countOperators()) > 0;
  }

  remove(name: string): Promise<boolean> {
    return this.store.removeOperator(name);
  }

  /** Sets a new password and signs the operator out everywhere; false when there is no such operator. */
  async resetPassword(name: string, password: string): Promise<boolean> {
    const problem = passwordProblem(password);
    if (problem) throw new OperatorError(problem);
    return this.store.setOperatorPassword(name, await hashPassword(password), new Date().toISOString());
  }

  /**
   * Checks a name and password, throttled per account and per address; a success opens a session. Unknown
   * names cost the same scrypt as wrong passwords and fail the same way.
   */
  async signIn(name: string, password: string, address: string): Promise<SignInOutcome> {
    const now = Date.now();
    const subjects = [`name:${name.toLowerCase()}`, `addr:${address}`];
    const blockedUntil = await this.store.signInBlockedUntil(subjects, now);
    if (blockedUntil > now) return { ok: false, retryAfterMs: blockedUntil - now };
    const found = await this.store.findOperator(name);
    const valid = await verifyPassword(password, found?.passwordHash ?? DUMMY_HASH);
    if (!found || !valid) {
      await this.store.recordSignInFailure(subjects, now, FAILURE_WINDOW_MS, (failures) =>
        failures < FREE_ATTEMPTS ? 0 : Math.min(MAX_BLOCK_MS, FIRST_BLOCK_MS * 2 ** (failures - FREE_ATTEMPTS)),
      );
      return { ok: false };
    }
    await this.store.clearSignInFailures([`name:${name.toLowerCase()}`]);
    return { ok: true, sessionId: await this.openSession(found.operator), operator: found.operator };
  }

  private async openSession(operator: Operator): Promise<string> {
    const sessionId = randomToken();
    const now = Date.now();
    await this.store.createSession(sha256(sessionId), operator.id, randomToken(), now, now - this.idleMs);
    return sessionId;
  }

  /** The live session a cookie names (idle ones end), or undefined. */
  async session(sessionId: string | undefined): Promise<OperatorSession | undefined> {
    if (sessionId?.length !== 43) return undefined;
    const now = Date.now();
    return this.store.findSession(sha256(sessionId), {
      nowMs: now,
      idleSinceMs: now - this.idleMs,
      touchBeforeMs: now - TOUCH_EVERY_MS,
    });
  }

  async signOut(sessionId: string): Promise<void> {
    await this.store.deleteSession(sha256(sessionId));
  }

  /** A one-time token for the first-run setup link, or undefined when an operator exists already. */
  async createSetupToken(): Promise<string | undefined> {
    if (await this.exist()) return undefined;
    const token = randomToken();
    await this.store.createSetupToken(sha256(token), Date.now() + SETUP_LINK_TTL_MS);
    return token;
  }

  async setupTokenValid(token: string): Promise<boolean> {
    return !(await this.exist()) && this.store.setupTokenValid(sha256(token), Date.now());
  }

  /** Spends the setup token on the first operator and signs them in; undefined when the token is not valid. */
  async completeSetup(token: string, name: string, password: string): Promise<string | undefined> {
    const problem = OperatorService.nameProblem(name) ?? passwordProblem(password);
    if (problem) throw new OperatorError(problem);
    if (await this.exist()) return undefined;
    if (!(await this.store.takeSetupToken(sha256(token), Date.now()))) return undefined;
    return this.openSession(await this.add(name, password));
  }
}

/** Equal strings, compared in constant time (CSRF tokens). */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
