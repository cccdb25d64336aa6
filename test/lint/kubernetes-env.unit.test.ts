import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ENV_VARIABLES, parseConfig } from '../../shared/config.js';
import { metricsRegistry, trackQueues } from '../../shared/telemetry/metrics.js';
import { ROOT } from '../support/processes.js';

// deploy/kubernetes/: every variable the manifests set is one the gateway reads, with a value its
// config schema accepts; the probes, grace periods and the KEDA metric are the ones the code has.
const DIR = path.join(ROOT, 'deploy/kubernetes');
// biome-ignore lint/suspicious/noExplicitAny: manifests of every kind, read field by field; the assertions are the type check
type Doc = Record<string, any>;
const docs: Doc[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => YAML.parseAllDocuments(readFileSync(path.join(DIR, f), 'utf8')).map((d) => d.toJS() as Doc))
  .filter(Boolean);

const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
const named = (kind: string, name: string) => byKind(kind).find((d) => d.metadata?.name === name)!;
const containersOf = (d: Doc): Doc[] => d.spec.template.spec.containers;

/** What a container's environment is: its envFrom ConfigMaps and Secrets, then its own env. */
function environmentOf(container: Doc): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, named('ConfigMap', from.configMapRef.name).data);
    if (from.secretRef) Object.assign(env, named('Secret', from.secretRef.name).stringData);
  }
  for (const e of container.env ?? []) env[e.name] = String(e.value);
  return env;
}

const workloads = [...byKind('Deployment'), ...byKind('Job')];

describe('deploy/kubernetes', () => {
  it('has the API and worker Deployments, the API Service, the migrations Job, the HPA and the KEDA ScaledObject', () => {
    expect(named('Deployment', 'gateway-api')).toBeDefined();
    expect(named('Deployment', 'gateway-worker')).toBeDefined();
    expect(named('Service', 'gateway-api')).toBeDefined();
    expect(containersOf(named('Job', 'gateway-migrate'))[0]!.command).toEqual(['node', 'dist/bin/cli.js', 'migrate']);
    expect(named('HorizontalPodAutoscaler', 'gateway-api').spec.metrics[0].resource.name).toBe('cpu');
    expect(named('ScaledObject', 'gateway-worker').spec.triggers[0].type).toBe('prometheus');
  });

  it('every variable set is one the config schema reads, and every container environment parses', () => {
    expect(workloads.length).toBe(3);
    for (const workload of workloads)
      for (const container of containersOf(workload)) {
        const env = environmentOf(container);
        const unknown = Object.keys(env).filter((name) => !ENV_VARIABLES.includes(name));
        expect(unknown, `${workload.metadata.name}: variables the gateway does not read`).toEqual([]);
        expect(() => parseConfig(env), workload.metadata.name).not.toThrow();
      }
  });

  it('probes on /healthz and /readyz; grace periods longer than the shutdown grace', () => {
    const api = named('Deployment', 'gateway-api');
    const [container] = containersOf(api);
    expect(container!.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container!.readinessProbe.httpGet.path).toBe('/readyz');
    const worker = named('Deployment', 'gateway-worker');
    const graceMs = parseConfig(environmentOf(containersOf(worker)[0]!)).shutdownGraceMs;
    // The worker finishes jobs for the grace, then hands the rest back (up to 5 s more): both fit.
    expect(worker.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(graceMs + 5_000);
    expect(api.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(graceMs);
  });

  it('KEDA scales on a metric the processes serve, on the port they serve it', () => {
    trackQueues({ queues: new Map() });
    const query: string = named('ScaledObject', 'gateway-worker').spec.triggers[0].metadata.query;
    const metric = /gateway_[a-z_]+/.exec(query)![0];
    expect(metric).toBe('gateway_queue_oldest_waiting_seconds');
    expect(metricsRegistry.getSingleMetric(metric)).toBeDefined();
    const api = named('Deployment', 'gateway-api');
    const port = containersOf(api)[0]!.ports.find((p: Doc) => p.name === 'metrics').containerPort;
    expect(String(port)).toBe(environmentOf(containersOf(api)[0]!).METRICS_PORT);
  });
});
