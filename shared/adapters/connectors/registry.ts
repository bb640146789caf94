/** Picks the connectors by mode: the simulator for test mode; none for live until a provider is configured. */
import type { ConnectorRegistry, Connectors } from '../../application/connectors';
import { sandboxConnectors } from './sandbox.connector';

export function connectorRegistry(baseUrl: () => string, live: Connectors | null = null): ConnectorRegistry {
  const sandbox = sandboxConnectors(baseUrl);
  return { forMode: (livemode) => (livemode ? live : sandbox) };
}
