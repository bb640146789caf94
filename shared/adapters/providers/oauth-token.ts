/**
 * OAuth2 client credentials (HTTP Basic) over a provider's transport, for the PSPs that speak API Pix's token
 * flow (API Pix itself, Efí): the access token cached until a minute before it expires, one request in flight
 * however many calls wait, and `force` for a token the provider refused. No answer, a refusal or an answer that
 * is not a token response is the caller's `unavailable` (the provider's own text is never carried further).
 */
import * as z from '../../domain/zod';
import { NoAnswer, safeJson, type HttpAnswer, type ProviderHttp } from './http-client';
import { tokenResponseSchema } from './api-pix/api-pix.schemas';

const TOKEN_MARGIN_MS = 60_000;

export interface ClientCredentials {
  readonly transport: ProviderHttp;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** How the grant is sent: API Pix's form body, or Efí's JSON. */
  readonly encoding: 'form' | 'json';
  readonly unavailable: (reason: string) => Error;
}

export function clientCredentialsToken(c: ClientCredentials): (force?: boolean) => Promise<string> {
  let cached: { token: string; until: number } | null = null;
  let inflight: Promise<string> | null = null;

  async function fetchToken(): Promise<string> {
    let a: HttpAnswer;
    try {
      a = await c.transport.send({
        method: 'POST',
        url: c.tokenUrl,
        headers: {
          authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
          'content-type': c.encoding === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
        },
        body: c.encoding === 'form' ? 'grant_type=client_credentials' : JSON.stringify({ grant_type: 'client_credentials' }),
      });
    } catch (e) {
      throw c.unavailable(e instanceof NoAnswer ? e.reason : String(e));
    }
    if (a.status !== 200 && a.status !== 201) {
      throw c.unavailable(
        a.status === 401 || a.status === 400
          ? `token refused (${a.status}): check client_id/client_secret`
          : `token endpoint answered ${a.status}`,
      );
    }
    const parsed = z.safeParse(tokenResponseSchema, safeJson(a.text));
    if (!parsed.success) throw c.unavailable('the token answer is not an OAuth2 token response');
    cached = { token: parsed.data.access_token, until: Date.now() + parsed.data.expires_in * 1000 - TOKEN_MARGIN_MS };
    return parsed.data.access_token;
  }

  return async (force = false) => {
    if (!force && cached && cached.until > Date.now()) return cached.token;
    inflight ??= fetchToken().finally(() => (inflight = null));
    return inflight;
  };
}
