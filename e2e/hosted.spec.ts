import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { IDP_CERT, IDP_ISSUER } from '../tests/helpers/saml-idp';
import { api, BASE, expectAccessible, expectKeyboardReachable, publishTxt, shoot, signInByEmail, signInBySaml } from './support/harness';

test.describe.configure({ mode: 'serial' });

const ADMIN = 'admin@acme-e2e.test';
const DOMAIN = 'corp-e2e.test';
const SAM = `sam@${DOMAIN}`;
let orgId = '';
let teamId = '';
let adminId = '';
let admin: BrowserContext;
let page: Page;

/**
 * Waits until a page is the one a check means: its refresh done (no request for a moment) and its
 * title back in place. A save's router.refresh() streams the page again, and a scan started in
 * between saw no <title> once.
 */
async function settled(p: Page, title: string) {
  await p.waitForLoadState('networkidle');
  await expect(p).toHaveTitle(title);
}

test.beforeAll(async ({ browser }) => {
  orgId = (await api('/organizations', { body: { name: 'Acme E2E' } })).body.organization.id;
  adminId = (await api('/users/provision', { body: { email: ADMIN, firstName: 'Ada', lastName: 'Admin' } })).body.user.id;
  expect((await api(`/users/${adminId}`, { method: 'PUT', body: { organization: orgId, organizationRole: 'admin' } })).status).toBe(200);
  // The team belongs to the organization (created by its admin), so the admin may add its members to it.
  for (const [path, method, body] of [
    ['/profile', 'PATCH', { timezone: 'Europe/Paris' }],
    [`/users/${adminId}/preferences/scheduling`, 'PUT', { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } }],
    ['/onboarding/mark-onboarded', 'POST', {}],
  ] as const) expect((await api(path, { method, as: ADMIN, body })).status).toBe(200);
  teamId = (await api('/teams', { as: ADMIN, body: { name: 'Research' } })).body.team.id;
  admin = await browser.newContext();
  page = await admin.newPage();
});

test.afterAll(async () => {
  await admin?.close();
});

test('email sign-in by the link captured from SMTP, with the keyboard only', async () => {
  const res = await page.goto('/sign-in');
  expect(res?.headers()).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' });
  // Scripts run only with this response's nonce; the page is never framed.
  expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await expectAccessible(page);
  await shoot(page, 'sign-in');
  await signInByEmail(page, ADMIN);
  await expect(page.getByRole('navigation', { name: 'Main' })).toContainText(`Sign out (${ADMIN})`);
  await expectAccessible(page);
  await shoot(page, 'home');
});

test('an admin adds a domain, publishes its TXT record (DNS on loopback) and verifies it', async () => {
  await page.goto(`/organizations/${orgId}/domains`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Acme E2E');
  await expectAccessible(page);
  await page.getByLabel('Add a domain').fill(DOMAIN);
  await page.getByRole('button', { name: 'Add domain' }).click();
  const item = page.getByRole('list', { name: 'Domains' }).getByRole('listitem').filter({ hasText: DOMAIN });
  await expect(item).toContainText(`_svc-verification.${DOMAIN}`);
  const value = (await item.locator('code').nth(1).textContent())!;
  expect(value).toMatch(/^svc-[0-9a-f]+$/);
  await item.getByRole('button', { name: `Verify ${DOMAIN}` }).click();
  await expect(page.getByRole('status').filter({ hasText: /TXT/ })).toBeVisible();
  publishTxt(`_svc-verification.${DOMAIN}`, value);
  await item.getByRole('button', { name: `Verify ${DOMAIN}` }).click();
  await expect(item).toContainText('verified');
  await expect(item.getByRole('button', { name: /Verify/ })).toHaveCount(0);
  await shoot(page, 'organization-domains');
});

test('an admin configures SSO and sees the service-provider values to register', async () => {
  await page.goto(`/organizations/${orgId}/sign-in`);
  await expect(page.getByText(`${BASE}/api/sso/saml/acs`)).toBeVisible();
  await expect(page.getByText(`${BASE}/api/sso/saml/metadata`)).toBeVisible();
  await page.getByLabel('IdP sign-on URL (entry point)').fill(`${process.env.E2E_IDP_URL}/sso`);
  await page.getByLabel('IdP entity id (issuer)').fill(IDP_ISSUER);
  await page.getByLabel('IdP signing certificate (PEM)').fill(IDP_CERT);
  await page.getByLabel('SSO enabled for the verified domains').check();
  await page.getByRole('button', { name: 'Save SSO settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'SSO settings saved' })).toBeVisible();
  await expect(page.getByText('A certificate is stored (never shown)')).toBeVisible();
  await expect(page.getByLabel('IdP signing certificate (PEM)')).toHaveValue('');
  const org = (await api(`/organizations/${orgId}`)).body.organization;
  expect(org.sso).toMatchObject({ enabled: true, saml: { entryPoint: `${process.env.E2E_IDP_URL}/sso`, issuer: IDP_ISSUER, hasCertificate: true } });
  // The save refreshes the server-rendered page; scan the page it settles on, not the one in between.
  await settled(page, 'Sign-in and provisioning · Steward');
  await expectAccessible(page);
  await expectKeyboardReachable(page);
  await shoot(page, 'organization-sso');
});

test('SP-initiated SAML sign-in through the test IdP page, which posts a signed response to the ACS', async ({ browser }) => {
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto('/sign-in');
  await p.getByLabel('Work email').fill(SAM);
  await p.getByRole('button', { name: 'Continue' }).click();
  await p.waitForURL(`${process.env.E2E_IDP_URL}/sso?**`);
  await expect(p.getByRole('heading', { name: 'Test IdP' })).toBeVisible();
  await shoot(p, 'test-idp');
  await p.getByLabel('Email at the IdP').fill(SAM);
  await p.getByRole('button', { name: 'Sign in at the test IdP' }).click();
  await p.getByRole('button', { name: 'Continue to Steward' }).click();
  await expect(p.getByRole('heading', { level: 1 })).toContainText('Welcome');
  await expect(p.getByRole('navigation', { name: 'Main' })).toContainText(`Sign out (${SAM})`);
  await shoot(p, 'saml-signed-in');
  const org = (await api(`/organizations/${orgId}`)).body.organization;
  expect(org.sso.saml.acsUrl).toBe(`${BASE}/api/sso/saml/acs`);

  // Signing out continues at the IdP (its logout URL is set), which sends the browser back signed out.
  expect((await api(`/organizations/${orgId}/sso`, { method: 'PUT', body: { saml: { logoutUrl: `${process.env.E2E_IDP_URL}/slo` } } })).status).toBe(200);
  await p.getByRole('button', { name: `Sign out (${SAM})` }).click();
  await expect(p.getByRole('heading', { name: 'Signed out at the test IdP' })).toBeVisible();
  await expect(p.getByText(`Session of ${SAM} ended.`)).toBeVisible();
  await p.getByRole('link', { name: 'Return to Steward' }).click();
  await expect(p).toHaveURL(/\/sign-in$/);
  await p.goto('/');
  await expect(p.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await ctx.close();
});

test('an admin mints a SCIM token and a user provisioned through SCIM appears among the members', async () => {
  await page.goto(`/organizations/${orgId}/sign-in`);
  await page.getByRole('button', { name: /Create token|Rotate token/ }).click();
  const token = await page.getByLabel('New token: copy it now, it is shown only once').inputValue();
  expect(token).toMatch(/^scim_/);
  const res = await fetch(`${BASE}/api/scim/v2/Users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' },
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `scim.person@${DOMAIN}`, name: { givenName: 'Scim', familyName: 'Person' }, active: true }),
  });
  expect(res.status).toBe(201);
  await page.reload();
  await expect(page.getByText(/A token is active/)).toBeVisible();
  // The organization's sections each have a page: the provisioned person is among the members.
  await page.getByRole('navigation', { name: 'Organization sections' }).getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('table').filter({ hasText: 'members' }).first()).toContainText(`scim.person@${DOMAIN}`);
  // Members and roles: the provisioned person becomes a guest; the only admin cannot step down.
  await page.getByLabel(`Organization role of scim.person@${DOMAIN}`).selectOption('guest');
  await page.getByRole('button', { name: `Apply Organization role of scim.person@${DOMAIN}` }).click();
  await expect(page.getByRole('status').filter({ hasText: `scim.person@${DOMAIN} is now guest` })).toBeVisible();
  const person = (await api(`/users?search=${encodeURIComponent(`scim.person@${DOMAIN}`)}`)).body.users[0];
  expect(person.organizationRole).toBe('guest');
  await page.getByLabel(`Organization role of ${ADMIN}`).selectOption('member');
  await page.getByRole('button', { name: `Apply Organization role of ${ADMIN}` }).click();
  await expect(page.getByRole('status').filter({ hasText: 'only admin' })).toBeVisible();
  expect((await api(`/users/${adminId}`)).body.user.organizationRole).toBe('admin');
  await shoot(page, 'organization-scim');
});

test('a team admin changes a member’s role and locks a policy switch', async ({ browser }) => {
  await page.goto(`/teams/${teamId}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Research');
  await expectAccessible(page);
  await page.getByLabel('Add a person of the organization by email').fill('nobody@elsewhere.example');
  await page.getByRole('button', { name: 'Add to team' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'User not found' })).toBeVisible();
  await page.getByLabel('Add a person of the organization by email').fill(SAM);
  await page.getByRole('button', { name: 'Add to team' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Added ${SAM}` })).toBeVisible();
  await page.getByLabel(`Team role of ${SAM}`).selectOption('admin');
  await page.getByRole('button', { name: `Apply Team role of ${SAM}` }).click();
  await expect(page.getByRole('status').filter({ hasText: `${SAM} is now admin` })).toBeVisible();
  const members = (await api(`/teams/${teamId}/members`)).body.members as Array<{ user: { email: string }; role: string }>;
  expect(members.find((m) => m.user.email === SAM)?.role).toBe('admin');

  await page.getByLabel('Workspace shell setting').selectOption('off');
  await page.getByRole('button', { name: 'Apply Workspace shell setting' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Workspace shell: off' })).toBeVisible();
  // The switch shows the server's state: it turns checked once the change is saved.
  await page.getByLabel('Lock Workspace shell').click();
  await expect(page.getByRole('status').filter({ hasText: 'Workspace shell locked' })).toBeVisible();
  await expect(page.getByLabel('Lock Workspace shell')).toBeChecked();
  const policy = (await api(`/teams/${teamId}/settings/resource-permissions`)).body.settings.capabilities;
  expect(policy).toMatchObject({ workspaceCli: 'off', workspaceCliLocked: true });
  await expectKeyboardReachable(page);
  await shoot(page, 'team-settings');

  // Sam is now a team admin (not an organization admin) and manages the team's policy too.
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await signInBySaml(p, SAM);
  await p.goto(`/teams/${teamId}`);
  await expect(p.getByText('Only team admins can change these settings.')).toHaveCount(0);
  await p.getByLabel('Browser automation setting').selectOption('off');
  await p.getByRole('button', { name: 'Apply Browser automation setting' }).click();
  await expect(p.getByRole('status').filter({ hasText: 'Browser automation: off' })).toBeVisible();
  await p.getByLabel('Lock Browser automation').click();
  await expect(p.getByLabel('Lock Browser automation')).toBeChecked();
  expect((await api(`/teams/${teamId}/settings/resource-permissions`)).body.settings.capabilities).toMatchObject({ browserAutomation: 'off', browserAutomationLocked: true });
  await shoot(p, 'team-settings-team-admin');
  await ctx.close();
});

test('with SSO enforced, the email link is refused with sso_required', async ({ browser }) => {
  expect((await api(`/organizations/${orgId}/sso`, { method: 'PUT', body: { enforced: true } })).status).toBe(200);
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto('/sign-in');
  await p.getByLabel('Work email').fill(ADMIN);
  await p.getByRole('button', { name: 'Continue' }).click();
  await expect(p.getByRole('alert').filter({ hasText: 'requires single sign-on' })).toBeVisible();
  await shoot(p, 'sign-in-sso-required');

  const { csrfToken } = await (await p.request.get('/api/auth/csrf')).json();
  const direct = await p.request.post('/api/auth/signin/email', { form: { email: ADMIN, csrfToken, json: 'true' } });
  expect(direct.status()).toBe(403);
  expect(await direct.json()).toMatchObject({ ok: false, status: 403, error_code: 'sso_required' });
  await ctx.close();

  // The admin's earlier email-link session ends too.
  await page.goto(`/organizations/${orgId}`);
  await expect(page).toHaveURL(/\/sign-in\?error=sso_required/);
});
