/** Health report: the service answers and its table is reachable. */
export interface HealthProbe {
  readonly name: string;
  check(): Promise<void>;
}

export async function checkHealth(...probes: HealthProbe[]) {
  const dependencies: Record<string, 'ok' | 'unavailable'> = {};
  for (const probe of probes) {
    try {
      await probe.check();
      dependencies[probe.name] = 'ok';
    } catch {
      dependencies[probe.name] = 'unavailable';
    }
  }
  const ok = Object.values(dependencies).every((v) => v === 'ok');
  return { status: ok ? ('ok' as const) : ('degraded' as const), time: new Date().toISOString(), dependencies };
}
