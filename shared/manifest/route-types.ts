import type { Access } from './access';
import type { Scope } from '../domain/access';

/** The shape of a route manifest entry (shared/manifest/routes.ts assembles the list). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * none: public (health, the customer-facing pages, which are authorised by an
 * unguessable cs_/pi_ id in the path); api_key: X-API-Key / Bearer sk_...;
 * session: authorised by the checkout session id in the body.
 */
export type AuthKind = 'none' | 'api_key' | 'session';

/** Which of SPEC.md section 7's error shapes the route answers with. */
export type ErrorFamily = 'checkout' | 'direct' | 'process';

export { SCOPES, type Scope } from '../domain/access';

export interface RouteDefinition {
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: /api/v1/methods/{method_code} */
  readonly path: string;
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly auth: AuthKind;
  /** Scope an API key needs (auth api_key only). */
  readonly scope?: Scope;
  /** Requests per merchant per minute; null: not rate-limited. */
  readonly rateLimitPerMinute: number | null;
  readonly family: ErrorFamily;
  /** Accepts X-Idempotency-Key. */
  readonly idempotent: boolean;
  readonly access: Access;
  /**
   * Request body encoding; 'form' for the sandbox pages' HTML forms; 'raw' for provider callbacks, whose
   * handler checks the path token before it reads the body. Default json.
   */
  readonly bodyFormat?: 'json' | 'form' | 'raw';
  /** The largest request body the route parses (default MAX_BODY_BYTES, 64 KB; never more than Lambda's 6 MB). */
  readonly maxBodyBytes?: number;
  /**
   * Whether the route's own 5xx alarm exists (default: every route but GET). A shopper's browser coming back from a
   * provider's page by a form POST pages through the whole API's 5xx alarm only: what it would have done, the
   * reconciliation job's read-back does anyway. Each route alarm is $0.20 a month (its two metrics).
   */
  readonly paging?: boolean;
  /**
   * The route serves test mode only (sk_test_ keys, sandbox payments): at the live stage, which serves sk_live_ keys
   * only, it can do nothing but refuse, so it has no 5xx alarm there.
   */
  readonly sandboxOnly?: boolean;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  /**
   * Files (from the repository root) shipped beside the function's bundle instead of inside it, read
   * with readAsset (shared/http/assets.ts) from the working directory: the repo root locally, the
   * code root (/var/task) on Lambda.
   */
  readonly assets?: readonly string[];
  readonly summary: string;
}

/** DESIGN.md section 4: routes SPEC.md does not list get 300/min for GET, 100/min for POST. */
export const defaultRateLimit = (method: HttpMethod) => (method === 'GET' ? 300 : 100);
