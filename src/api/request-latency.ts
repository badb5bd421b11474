/** Upper bounds (seconds) of the latency histogram's buckets. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const NAME = "mixdown_http_request_duration_seconds";

interface Series {
  labels: string;
  /** Observations at or under each bound (not yet cumulative). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A label value in Prometheus' text format: backslash, double quote and newline escaped. */
const escapeLabel = (value: string): string => value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));

/**
 * HTTP latency as a Prometheus histogram, by method, route and status. Observed on every request, so it is a few
 * array writes: prom-client's Histogram validates and hashes the labels on each observation, which cost the polled
 * status route about a microsecond a request (bench/status-throughput.ts). Written out only when scraped.
 */
export class RequestLatency {
  /** By method, route and status: nested maps, since building a key string per request costs more than the rest. */
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byRoute = this.series.get(method);
    if (!byRoute) {
      byRoute = new Map();
      this.series.set(method, byRoute);
    }
    let byStatus = byRoute.get(route);
    if (!byStatus) {
      byStatus = new Map();
      byRoute.set(route, byStatus);
    }
    let series = byStatus.get(statusCode);
    if (!series) {
      const labels = `method="${escapeLabel(method)}",route="${escapeLabel(route)}",status_code="${statusCode}"`;
      series = { labels, counts: new Float64Array(BUCKETS.length), sum: 0, count: 0 };
      byStatus.set(statusCode, series);
    }
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket++;
    if (bucket < BUCKETS.length) series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
    series.sum += seconds;
    series.count++;
  }

  /** The histogram in Prometheus' text exposition format. */
  exposition(): string {
    const lines = [
      `# HELP ${NAME} HTTP request latency: from its arrival to its response ready to send (a streamed body's sending not included)`,
      `# TYPE ${NAME} histogram`,
    ];
    const all = [...this.series.values()].flatMap((byRoute) => [...byRoute.values()].flatMap((m) => [...m.values()]));
    for (const { labels, counts, sum, count } of all) {
      let cumulative = 0;
      BUCKETS.forEach((bound, i) => {
        cumulative += counts[i] ?? 0;
        lines.push(`${NAME}_bucket{le="${bound}",${labels}} ${cumulative}`);
      });
      lines.push(`${NAME}_bucket{le="+Inf",${labels}} ${count}`);
      lines.push(`${NAME}_sum{${labels}} ${sum}`);
      lines.push(`${NAME}_count{${labels}} ${count}`);
    }
    return `${lines.join("\n")}\n`;
  }
}
