/** Picks the connectors by mode: the simulator for test mode; live, the providers the stage's configuration names. */
import type { ConnectorRegistry, Connectors } from '../../application/providers';
import { sandboxConnectors } from './sandbox.connector';

export function connectorRegistry(baseUrl: () => string, live: () => Promise<Connectors | null> = async () => null): ConnectorRegistry {
  const sandbox = sandboxConnectors(baseUrl);
  return { forMode: async (livemode) => (livemode ? live() : sandbox) };
}
