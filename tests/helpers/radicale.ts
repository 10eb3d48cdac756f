import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A real CalDAV server for the calendar tests: Debian's Radicale (/usr/bin/radicale, installed by
 * .ci/run) on a free loopback port, with its own storage folder and a plain htpasswd file, started
 * the way the test database is and stopped after. Besides the server it offers what another
 * CalDAV client (a phone, a colleague's app) would do directly on the server: make a calendar,
 * put, change or delete an event, so a test can check that Steward's sync sees it.
 */

const RADICALE = '/usr/bin/radicale';

export type Radicale = {
  url: string;
  port: number;
  /** Adds (or changes the password of) a user; Radicale reads the htpasswd file on each login. */
  addUser(name: string, password: string): void;
  /** MKCALENDAR /<user>/<slug>/ with a display name and colour; answers its URL. */
  makeCalendar(user: string, slug: string, o?: { name?: string; color?: string }): Promise<string>;
  /** PUT an iCalendar object as its owner; answers the new ETag. */
  put(user: string, slug: string, file: string, ics: string, o?: { ifMatch?: string }): Promise<{ status: number; etag: string | null }>;
  /** GET an object: its body and ETag (null when absent). */
  get(user: string, slug: string, file: string): Promise<{ status: number; body: string; etag: string | null }>;
  remove(user: string, slug: string, file: string): Promise<number>;
  /**
   * Many objects at once, written straight into the calendar's storage folder (Radicale reads its
   * folders as they are on disk; uploading thousands one PUT at a time takes minutes). For seeding
   * the bench; the calendar must have been made first.
   */
  seedFiles(user: string, slug: string, items: Array<{ file: string; ics: string }>): void;
  /** The environment Steward needs to reach it (loopback is refused unless allowed). */
  env: Record<string, string>;
  close(): Promise<void>;
};

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export async function startRadicale(): Promise<Radicale> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-radicale-'));
  const users = new Map<string, string>();
  const htpasswd = path.join(dir, 'users');
  const writeUsers = () => writeFileSync(htpasswd, [...users].map(([u, p]) => `${u}:${p}\n`).join(''));
  writeUsers();
  const port = await freePort();
  const config = path.join(dir, 'config');
  writeFileSync(
    config,
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      'max_connections = 20',
      // A full sync of thousands of events is one large REPORT answer.
      'max_content_length = 100000000',
      'timeout = 60',
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${htpasswd}`,
      'htpasswd_encryption = plain',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  // --config replaces the default search path (/etc/radicale/config, ~/.config/radicale/config).
  const child: ChildProcess = spawn(RADICALE, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dir } });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`radicale exited (${child.exitCode}):\n${output}`);
    const up = await fetch(`${url}/.well-known/caldav`, { method: 'GET', redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`radicale did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const auth = (user: string) => `Basic ${Buffer.from(`${user}:${users.get(user) ?? ''}`).toString('base64')}`;
  const object = (user: string, slug: string, file: string) => `${url}/${user}/${slug}/${file}`;

  return {
    url,
    port,
    env: { STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.0/8' },
    addUser(name, password) {
      users.set(name, password);
      writeUsers();
    },
    async makeCalendar(user, slug, o = {}) {
      const body = `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">
  <D:set><D:prop>
    <D:displayname>${o.name ?? slug}</D:displayname>
    ${o.color ? `<I:calendar-color>${o.color}</I:calendar-color>` : ''}
    <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>`;
      // The principal's own collection is made on first login: touch it before making a calendar in it.
      await fetch(`${url}/${user}/`, { method: 'PROPFIND', headers: { Authorization: auth(user), Depth: '0' } }).then((r) => r.arrayBuffer());
      const res = await fetch(`${url}/${user}/${slug}/`, { method: 'MKCALENDAR', headers: { Authorization: auth(user), 'Content-Type': 'application/xml' }, body });
      if (res.status !== 201) throw new Error(`MKCALENDAR ${slug}: ${res.status} ${await res.text()}`);
      return `${url}/${user}/${slug}/`;
    },
    async put(user, slug, file, ics, o = {}) {
      const res = await fetch(object(user, slug, file), {
        method: 'PUT',
        headers: { Authorization: auth(user), 'Content-Type': 'text/calendar; charset=utf-8', ...(o.ifMatch ? { 'If-Match': o.ifMatch } : {}) },
        body: ics,
      });
      await res.arrayBuffer();
      return { status: res.status, etag: res.headers.get('etag') };
    },
    async get(user, slug, file) {
      const res = await fetch(object(user, slug, file), { headers: { Authorization: auth(user) } });
      return { status: res.status, body: await res.text(), etag: res.headers.get('etag') };
    },
    async remove(user, slug, file) {
      const res = await fetch(object(user, slug, file), { method: 'DELETE', headers: { Authorization: auth(user) } });
      await res.arrayBuffer();
      return res.status;
    },
    seedFiles(user, slug, items) {
      const folder = path.join(dir, 'collections', 'collection-root', user, slug);
      for (const it of items) writeFileSync(path.join(folder, it.file), it.ics);
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
