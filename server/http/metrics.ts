/**
 * Process-local metrics in the Prometheus text format (GET /api/metrics). Each Steward process
 * counts what it served; Prometheus scrapes every process (the usual pull model), so nothing is
 * shared between processes here. Counters only grow; labels are low-cardinality by construction
 * (a route is the registry's path template, never the request's own path).
 */

type Labels = Record<string, string>;

class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  add(labels: Labels, by = 1): void {
    this.addSeries(JSON.stringify(labels), labels, by);
  }
  /** The same with a key the caller made once for these labels. */
  addSeries(key: string, labels: Labels, by = 1): void {
    const cur = this.values.get(key);
    if (cur) cur.value += by;
    else this.values.set(key, { labels, value: by });
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) out.push(`${this.name}${labelText(labels)} ${value}`);
    return out;
  }
}

/** Request durations in seconds, one histogram per route (buckets suited to an API). */
class Histogram {
  private readonly buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  observe(labels: Labels, seconds: number): void {
    this.observeSeries(JSON.stringify(labels), labels, seconds);
  }
  observeSeries(key: string, labels: Labels, seconds: number): void {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (seconds <= this.buckets[i]) s.counts[i]++;
    s.sum += seconds;
    s.count++;
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => out.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(b) })} ${s.counts[i]}`));
      out.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`, `${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (labels: Labels) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

const requests = new Counter('steward_http_requests_total', 'API requests answered, by method, route template and status');
const durations = new Histogram('steward_http_request_duration_seconds', 'Time to the reply head, by route template');
const modelTokens = new Counter('steward_model_tokens_total', 'Model tokens used by agent runs, by tier and kind (input, output, cache_read)');
const modelCalls = new Counter('steward_model_calls_total', 'Model calls made by agent runs, by tier');
const executorSaturated = new Counter(
  'steward_executor_saturated_total',
  "Times this process's executor found a durable run due while every one of its workers was busy (the run waited for a worker)",
);

const workspaceForwards = new Counter(
  'steward_workspace_forwards_total',
  "Workspace browser operations this process sent to the process that holds the user's browser, by operation and outcome (ok, refused, unreachable, failed)",
);
const workspaceTakeovers = new Counter('steward_workspace_takeovers_total', 'Browsers this process started in place of a holder that was gone (killed, stopped, unreachable)');

/**
 * The series of each route, made once: per request the kernel only finds them by a plain string
 * key and bumps them (labels as JSON, built per request, were a measurable share of its time).
 */
const requestSeries = new Map<string, { method: string; route: string; status: string }>();
const durationSeries = new Map<string, { route: string }>();

/** Called by the kernel once per answered request. */
export function countRequest(method: string, route: string, status: number, seconds: number): void {
  const key = `${method} ${status} ${route}`;
  let labels = requestSeries.get(key);
  if (!labels) requestSeries.set(key, (labels = { method, route, status: String(status) }));
  let routeLabels = durationSeries.get(route);
  if (!routeLabels) durationSeries.set(route, (routeLabels = { route }));
  requests.addSeries(key, labels);
  durations.observeSeries(route, routeLabels, seconds);
}

/** Called wherever a model call's usage is recorded (tasks and chats). */
export function countModelUsage(tier: string, usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number }): void {
  modelCalls.add({ tier });
  if (usage.inputTokens) modelTokens.add({ tier, kind: 'input' }, usage.inputTokens);
  if (usage.outputTokens) modelTokens.add({ tier, kind: 'output' }, usage.outputTokens);
  if (usage.cacheReadTokens) modelTokens.add({ tier, kind: 'cache_read' }, usage.cacheReadTokens);
}

/** Called by the executor's clock when a run is due and every worker is busy (server/executor/executor.ts). */
export function countExecutorSaturated(): void {
  executorSaturated.add({});
}

/** Called by the workspace when it sends a browser operation to another process (server/workspace/nodes/follow.ts). */
export function countWorkspaceForward(op: string, outcome: 'ok' | 'refused' | 'unreachable' | 'failed'): void {
  workspaceForwards.add({ op, outcome });
}

/** Called when this process starts a user's browser in place of a holder that was gone. */
export function countWorkspaceTakeover(): void {
  workspaceTakeovers.add({});
}

/**
 * The workspace browsers this process runs, set by the browser manager as they start and stop: a
 * gauge of this process alone, so summed across processes it is the deployment's total (the
 * engine gauges are read from the shared database instead: the same figure in every process).
 */
let workspaceBrowsers = 0;
export function setWorkspaceBrowsers(n: number): void {
  workspaceBrowsers = n;
}

/** A gauge read at scrape time (engine queue depth, lateness), rendered after the counters. */
export type Gauge = { name: string; help: string; samples: { labels?: Labels; value: number }[] };

export function renderMetrics(gauges: Gauge[]): string {
  const lines = [...requests.render(), ...durations.render(), ...modelCalls.render(), ...modelTokens.render(), ...executorSaturated.render()];
  lines.push(...workspaceForwards.render(), ...workspaceTakeovers.render());
  lines.push('# HELP steward_workspace_browsers Workspace browsers this process runs now', '# TYPE steward_workspace_browsers gauge', `steward_workspace_browsers ${workspaceBrowsers}`);
  for (const g of gauges) {
    lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
    for (const s of g.samples) lines.push(`${g.name}${labelText(s.labels ?? {})} ${s.value}`);
  }
  return lines.join('\n') + '\n';
}
