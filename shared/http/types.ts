import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../application/access';
import type { RouteDefinition } from '../manifest/routes';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** What the pipeline adds to the Lambda context for the handler and later middlewares. */
export interface PipelineContext extends Context {
  route: RouteDefinition;
  requestId: string;
  startedAt: number;
  principal?: Principal;
  input: { query: unknown; path: unknown; body: unknown };
  /** Headers every response of this request carries (X-RateLimit-*), errors included. */
  responseHeaders: Record<string, string>;
}

/** A handler's answer; the builder serialises `body` as JSON unless `raw` is given (HTML pages, images, redirects). */
export interface HttpResponse {
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly raw?: { readonly contentType: string; readonly text?: string; readonly bytes?: Buffer };
}
