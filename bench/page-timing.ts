import { spread } from './processes';

/** The spread of `fn`'s time over `samples` sequential calls, after `warmup` untimed ones. */
export async function sampleSequential(fn: () => Promise<unknown>, samples: number, warmup: number) {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return spread(out);
}

/** GETs a page or API path and fails unless it answers 200 (and, when given, contains `expectText`). */
export async function getPage(url: string, headers: Record<string, string>, expectText?: string) {
  const res = await fetch(url, { headers, redirect: 'manual' });
  const body = await res.text();
  if (res.status !== 200 || (expectText && !body.includes(expectText))) throw new Error(`${url}: ${res.status} ${body.slice(0, 300)}`);
}
