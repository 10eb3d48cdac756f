/**
 * Node's `process.env` is an exotic object: listing it asks the C library for every variable, one
 * call each (about 25 µs for 70 variables here, and `npm start` adds some 30 npm_* ones). The
 * Inngest SDK lists the whole environment on every request it makes or answers (its
 * `getProcessEnv`, twice per checkpoint), which was a tenth of a durable step's CPU. The server
 * never changes its environment for native code after start-up, so `npm start` swaps `process.env` for a
 * plain copy: reads and writes behave the same for JavaScript and for child processes (which are
 * given `process.env` as their environment), listing it costs a few microseconds. What no longer
 * happens is a later assignment reaching libc's environment (`getenv` from native code, and
 * Node's timezone reset on `process.env.TZ = …`); the server makes none.
 */
export function plainProcessEnv(): void {
  if (plain.has(process.env)) return;
  const copy: NodeJS.ProcessEnv = { ...process.env };
  plain.add(copy);
  process.env = copy;
}

const plain = new WeakSet<object>();
