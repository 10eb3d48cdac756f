import { expect, test } from '@playwright/test';
import { api, signInByEmail } from './support/harness';
import { checkPage, expectPhoneFriendly, newPerson, WIDTHS } from './support/hosted-app';

/*
 * Issue 46, join requests in the hosted app at 1280 and 390 px: a person of an organization opens
 * "Join a team" from the account menu's link, asks to join a team that wants approval; the team's
 * admin sees the request on the team page and approves it; the person is then on the team (the
 * API says so) and the team is no longer offered.
 */

for (const [width, viewport] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, (typeof WIDTHS)[keyof typeof WIDTHS]]>) {
  test(`join a team at ${width} width: ask, the admin approves, the person is on the team`, async ({ browser }) => {
    test.setTimeout(120_000);
    const org = (await api('/organizations', { body: { name: `Join E2E ${width} ${Date.now().toString(36)}` } })).body.organization as { id: string };
    const lead = await newPerson(`join-lead-${width}`);
    const asker = await newPerson(`join-asker-${width}`);
    expect((await api(`/users/${lead.id}`, { method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } })).status).toBe(200);
    expect((await api(`/users/${asker.id}`, { method: 'PUT', body: { organization: org.id, organizationRole: 'member' } })).status).toBe(200);
    const teamName = `Field ${width}`;
    const created = await api('/teams', { body: { name: teamName, adminApprovalRequired: true }, as: lead.email });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const teamId = created.body.team.id as string;
    const mobile = width === 'phone' ? { hasTouch: true, isMobile: true } : {};

    const askerContext = await browser.newContext({ viewport, ...mobile });
    const page = await askerContext.newPage();
    await signInByEmail(page, asker.email);
    await page.goto('/teams');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Join a team');
    await checkPage(page);
    if (width === 'phone') await expectPhoneFriendly(page);
    const teams = page.getByRole('list', { name: 'Teams you can join' });
    await teams.getByRole('button', { name: `Ask to join ${teamName}` }).click();
    await expect(page.getByRole('status')).toHaveText(`Asked to join ${teamName}: its admins will decide`);
    await expect(teams.getByRole('button', { name: `Withdraw the request to join ${teamName}` })).toBeVisible();

    const leadContext = await browser.newContext({ viewport, ...mobile });
    const admin = await leadContext.newPage();
    await signInByEmail(admin, lead.email);
    await admin.goto(`/teams/${teamId}`);
    const requests = admin.getByRole('list', { name: 'Requests to join' });
    await expect(requests).toContainText(asker.email);
    await checkPage(admin, { keyboard: false });
    await requests.getByRole('button', { name: `Approve ${asker.email}` }).click();
    await expect(admin.getByRole('region', { name: 'Requests to join' }).getByRole('status')).toHaveText(`${asker.email} joined the team`);
    await expect(admin.getByText('No one is waiting to join.')).toBeVisible();

    const user = (await api(`/users/${asker.id}`)).body.user as { team: { id: string } };
    expect(user.team.id).toBe(teamId);
    await page.reload();
    await expect(page.getByRole('button', { name: `Ask to join ${teamName}` })).toHaveCount(0);
    await askerContext.close();
    await leadContext.close();
  });
}
