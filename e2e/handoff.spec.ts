import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { api, shoot } from './support/harness';
import { handoffDirective } from './support/model-script';

/*
 * Issue 17, a handoff end to end in Chromium against the production server: a task's run (the
 * scripted model) asks for a handoff to a sign-in page on loopback; the user opens the session
 * link, signs in by clicking and typing in the live view (frames of their own workspace
 * browser, over the WebSocket beside the API), and presses Done; the task resumes, reads the
 * signed-in page with browser_read, and says what it read.
 */

const USER = `hana-${Date.now().toString(36)}@handoff-e2e.test`;
const asUser = (p: string, opts: { method?: string; body?: unknown } = {}) => api(p, { ...opts, as: USER });

/** The sign-in site: fields at known places of the workspace's 1280×800 tab. */
const FORM = `<!doctype html><html><head><title>Shop sign-in</title><style>body{margin:0;font:16px sans-serif}
input,button{position:absolute;left:100px;width:400px;height:40px;font-size:20px}</style></head><body>
<form method="post" action="/login"><input id="user" name="user" aria-label="User" style="top:100px" autocomplete="off">
<input id="pass" name="pass" type="password" aria-label="Password" style="top:200px"><button type="submit" style="top:300px">Sign in</button></form></body></html>`;

let site: http.Server;
let siteUrl = '';
let assistantId = '';

test.beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/login') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const ok = form.get('user') === 'hana' && form.get('pass') === 'open sesame';
        res.writeHead(303, { location: ok ? '/account' : '/?failed=1', ...(ok ? { 'set-cookie': 'session=hana; Path=/' } : {}) });
        res.end();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    if (req.url === '/account' && /session=hana/.test(req.headers.cookie ?? '')) res.end('<h1>Account of hana</h1><p>Welcome back, Hana. Your order 4711 ships today.</p>');
    else res.end(FORM);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

  const provisioned = await api('/users/provision', { body: { email: USER, firstName: 'Hana', lastName: 'Owner' } });
  expect(provisioned.status, JSON.stringify(provisioned.body)).toBeLessThan(300);
  const userId = provisioned.body.user.id;
  for (const [path, method, body] of [
    ['/profile', 'PATCH', { timezone: 'Europe/Paris' }],
    [`/users/${userId}/preferences/scheduling`, 'PUT', { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } }],
    ['/onboarding/mark-onboarded', 'POST', {}],
  ] as const) expect((await asUser(path, { method, body })).status).toBe(200);
  const hired = await asUser(`/users/${userId}/assistants`, { body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  assistantId = hired.body.assistant.id;
});

test.afterAll(async () => {
  site?.closeAllConnections();
  await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
});

test('the user signs in through the live view, presses Done, and the task resumes and reads the signed-in page', async ({ browser }) => {
  test.setTimeout(150_000);
  const created = await asUser('/tasks', { body: { title: 'Check my shop order', assistant: assistantId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const taskId = created.body.task.id as string;
  const message = `Check whether my order ships. ${handoffDirective({ id: `${Date.now()}`, url: siteUrl, prompt: 'Please sign in to the shop' })}`;
  expect((await asUser(`/tasks/${taskId}/process`, { body: { message } })).status).toBe(200);

  let handoff: { id: string; status: string; urlSource: string; targetUrl: string } | undefined;
  await expect
    .poll(async () => (handoff = (await asUser('/workspace/handoff/active')).body?.handoffs?.find((x: { taskId: string }) => x.taskId === taskId)) !== undefined, {
      timeout: 60_000,
      message: 'the task asks for a handoff',
    })
    .toBe(true);
  expect(handoff).toMatchObject({ status: 'pending', urlSource: 'live', targetUrl: siteUrl });
  await expect.poll(async () => (await asUser(`/tasks/${taskId}`)).body?.task?.status).toBe('awaiting_user_input');

  const session = await asUser(`/workspace/handoff/${handoff!.id}/session`, { body: {} });
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  expect(session.body.control).toMatchObject({ operator: 'user', handoffId: handoff!.id });

  // A browser of its own, not signed in to the hosted app: the link is the credential.
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
  const page = await ctx.newPage();
  await page.goto(session.body.sessionUrl);
  // The token leaves the address bar at once.
  await expect(page).toHaveURL(new RegExp(`/handoffs/${handoff!.id}$`));
  await expect(page.getByText('Please sign in to the shop')).toBeVisible();
  const screen = page.getByRole('img', { name: 'Your browser' });
  await expect(screen).toBeVisible({ timeout: 30_000 });
  await expect(page.getByLabel('Address')).toHaveValue(siteUrl);
  await shoot(page, 'handoff-live-view');

  /** Clicks the live view at a point of the remote 1280×800 tab. */
  const clickAt = async (x: number, y: number) => {
    const box = (await screen.boundingBox())!;
    await page.mouse.click(box.x + (x / 1280) * box.width, box.y + (y / 800) * box.height);
  };
  await clickAt(300, 120);
  await page.keyboard.type('hana', { delay: 20 });
  await clickAt(300, 220);
  await page.keyboard.type('open sesame', { delay: 20 });
  await clickAt(300, 320);
  await expect(page.getByLabel('Address')).toHaveValue(`${siteUrl}account`, { timeout: 20_000 });
  await shoot(page, 'handoff-signed-in');

  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Done' })).toContainText('your assistant has the browser again');

  // The task resumes, reads its tab (now signed in) and says what it read.
  let said = '';
  await expect
    .poll(
      async () => {
        const acts = (await asUser(`/tasks/${taskId}/activities`)).body?.activities ?? [];
        said = acts.map((x: { message?: { content?: string } | null }) => x.message?.content ?? '').join('\n');
        return said.includes('Signed-in page:');
      },
      { timeout: 60_000, message: 'the resumed run reads the signed-in page' },
    )
    .toBe(true);
  expect(said).toContain('Welcome back, Hana. Your order 4711 ships today.');
  // What the person typed went to the browser only.
  expect(said).not.toContain('open sesame');
  expect((await asUser('/workspace/handoff/active')).body.handoffs).toEqual([]);
  await ctx.close();
});
