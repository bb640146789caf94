/**
 * Response headers of the customer-facing pages: a strict Content-Security-Policy
 * (only the page's own nonce'd script and style run, only same-origin requests and
 * images), no framing, no referrer, nothing cached.
 */
import { randomBytes } from 'node:crypto';

export const newNonce = () => randomBytes(18).toString('base64');

export interface PageSecurityOptions {
  /** Nonce of the page's inline <script> and <style>; without one, no script runs at all. */
  readonly nonce?: string;
  /**
   * form-action 'self' blocks a form submission's redirect off-site in Chromium, so
   * the sandbox pages, whose forms 303 to the merchant's success_url, leave it out.
   */
  readonly formsRedirectOffSite?: boolean;
}

export function contentSecurityPolicy({ nonce, formsRedirectOffSite }: PageSecurityOptions): string {
  const code = nonce ? `'nonce-${nonce}'` : "'none'";
  return [
    "default-src 'none'",
    `script-src ${code}`,
    `style-src ${code}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    ...(formsRedirectOffSite ? [] : ["form-action 'self'"]),
    "frame-ancestors 'none'",
  ].join('; ');
}

export function pageSecurityHeaders(options: PageSecurityOptions): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(options),
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  };
}
