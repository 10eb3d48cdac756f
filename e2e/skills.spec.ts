import { expect, test } from '@playwright/test';
import { expectAccessible, signInByEmail } from './support/harness';
import { as, expectPhoneFriendly, newPerson, WIDTHS } from './support/hosted-app';

/*
 * Issue 45, Skills and workflows: the person's workflow is listed, switched off and on again (the
 * API answers each change), and its runs are shown with the task each one started; at both widths.
 */

for (const [width, viewport] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, (typeof WIDTHS)[keyof typeof WIDTHS]]>) {
  test(`skills at ${width} width: a workflow listed, switched off and on, its runs shown`, async ({ browser }) => {
    test.setTimeout(120_000);
    const person = await newPerson(`skills-${width}`);
    const made = await as(person)('/skills', {
      body: { kind: 'workflow', name: 'weekly-review', title: 'Weekly review', description: 'Sums up the week’s open tasks every Friday.', instructions: 'List what is still open and what moved.', triggers: [{ on: 'manual' }] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const skillId = made.body.skill.id as string;
    expect((await as(person)(`/skills/${skillId}/run`, { method: 'POST' })).status).toBeLessThan(300);

    const context = await browser.newContext({ viewport, ...(width === 'phone' ? { hasTouch: true, isMobile: true } : {}) });
    const page = await context.newPage();
    await signInByEmail(page, person.email);
    await page.goto('/skills');
    const workflows = page.getByRole('list', { name: 'Workflows' });
    await expect(workflows.getByRole('heading', { name: 'Weekly review' })).toBeVisible();
    await expectAccessible(page);
    if (width === 'phone') await expectPhoneFriendly(page);

    const toggle = page.getByRole('switch', { name: 'Weekly review: on' });
    await expect(toggle).toBeChecked();
    await toggle.click();
    await expect(page.getByText('Weekly review is off.', { exact: true })).toBeVisible();
    await expect(toggle).not.toBeChecked();
    expect((await as(person)(`/skills/${skillId}`)).body.skill.enabled).toBe(false);
    await toggle.click();
    await expect(page.getByText('Weekly review is on.', { exact: true })).toBeVisible();
    expect((await as(person)(`/skills/${skillId}`)).body.skill.enabled).toBe(true);

    await page.getByRole('button', { name: 'Runs of Weekly review' }).click();
    const runs = page.getByRole('dialog', { name: 'Runs of Weekly review' });
    await expect(runs.getByRole('list', { name: 'Runs of Weekly review' }).getByRole('listitem')).toHaveCount(1);
    await expect(runs).toContainText('Started a task');
    await expect(runs.getByRole('link')).toHaveCount(1);
    await expectAccessible(page);
    await context.close();
  });
}
