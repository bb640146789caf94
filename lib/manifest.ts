/**
 * What the CDK app builds from: the manifests in shared/manifest/. Tests can pass
 * another manifest (for example one with queue consumers and jobs).
 */
import type { Access } from '../shared/manifest/access';
import { JOBS, type JobDefinition } from '../shared/manifest/jobs';
import { queueDefinitions, type QueueDefinition } from '../shared/manifest/queues';
import { FALLBACK_ROUTE, ROUTES, type RouteDefinition } from '../shared/manifest/routes';
import { STREAM_CONSUMERS, type StreamConsumer } from '../shared/manifest/streams';

export interface FallbackDefinition {
  readonly id: string;
  readonly handler: string;
  readonly access: Access;
}

export interface ServiceManifest {
  readonly routes: readonly RouteDefinition[];
  /** API Gateway's $default route. */
  readonly fallback: FallbackDefinition;
  readonly queues: readonly QueueDefinition[];
  readonly jobs: readonly JobDefinition[];
  /** Consumers of the table's stream. */
  readonly streams: readonly StreamConsumer[];
}

export const MANIFEST: ServiceManifest = {
  routes: ROUTES,
  fallback: FALLBACK_ROUTE,
  queues: queueDefinitions(),
  jobs: JOBS,
  streams: STREAM_CONSUMERS,
};

/** `list-methods` -> `ListMethods`: construct ids from manifest ids. */
export const pascal = (id: string) => id.replace(/(^|[^a-zA-Z0-9]+)([a-zA-Z0-9])/g, (_m, _s, c: string) => c.toUpperCase());
