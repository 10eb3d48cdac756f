/*
 * Locality-sensitive hashing of unit vectors by random hyperplanes (Charikar's SimHash), the
 * fallback index for nearest neighbours where PostgreSQL has no pgvector (the embedded server):
 * TABLES tables of BITS hyperplanes each; a vector's key in a table is the side of each
 * hyperplane it lies on. Two vectors at angle θ agree on a bit with probability 1 − θ/π, so
 * close vectors share a key in some table. A query also probes every key one bit away from its
 * own (multi-probe), which finds a neighbour at cosine 0.8 with probability above 0.99 and one at
 * 0.6 with about 0.8, while a key holds about n / 4096 of n memories.
 *
 * The hyperplanes come from a fixed seed, so every process and every release computes the same
 * keys for the same vector: changing TABLES, BITS or SEED means computing every stored key again.
 */

export const TABLES = 16;
export const BITS = 12;
const SEED = 0x5eed_0044;

/** mulberry32: a small, well-distributed 32-bit generator; enough for hyperplanes. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const planesByDims = new Map<number, Float64Array>();

/** TABLES × BITS hyperplanes of `dims` Gaussian components (Box–Muller), made once per dimension. */
function planes(dims: number): Float64Array {
  const known = planesByDims.get(dims);
  if (known) return known;
  const next = generator(SEED ^ dims);
  const out = new Float64Array(TABLES * BITS * dims);
  for (let i = 0; i < out.length; i += 2) {
    const u = Math.max(next(), 1e-12);
    const v = next();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  planesByDims.set(dims, out);
  return out;
}

/** The vector's key in each table, as table × 2^BITS + key (so keys of different tables never meet). */
export function bucketsOf(vector: readonly number[]): number[] {
  const p = planes(vector.length);
  const out: number[] = [];
  for (let t = 0; t < TABLES; t++) {
    let key = 0;
    for (let b = 0; b < BITS; b++) {
      const base = (t * BITS + b) * vector.length;
      let dot = 0;
      for (let d = 0; d < vector.length; d++) dot += p[base + d] * vector[d];
      if (dot >= 0) key |= 1 << b;
    }
    out.push(t * (1 << BITS) + key);
  }
  return out;
}

/** The keys a query probes: its own in each table and every key one bit away. */
export function probesOf(vector: readonly number[]): number[] {
  const out: number[] = [];
  for (const bucket of bucketsOf(vector)) {
    out.push(bucket);
    const table = bucket - (bucket % (1 << BITS));
    const key = bucket % (1 << BITS);
    for (let b = 0; b < BITS; b++) out.push(table + (key ^ (1 << b)));
  }
  return out;
}

/** The vector scaled to length 1 (cosine is then a dot product); a zero vector stays zero. */
export function unit(vector: readonly number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : vector.map(() => 0);
}
