import { expect, test } from '@playwright/test';
import { expectAccessible, signInByEmail } from './support/harness';
import { as, expectPhoneFriendly, newPerson, WIDTHS } from './support/hosted-app';

/*
 * Issue 45, Contacts: the person adds someone, finds them by search, opens them, changes their
 * details (what the API then answers), shares them with the team, and removes them; at both widths.
 */

for (const [width, viewport] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, (typeof WIDTHS)[keyof typeof WIDTHS]]>) {
  test(`contacts at ${width} width: add, search, open, edit (the API answers the change), share, remove`, async ({ browser }) => {
    test.setTimeout(120_000);
    const person = await newPerson(`contacts-${width}`);
    const context = await browser.newContext({ viewport, ...(width === 'phone' ? { hasTouch: true, isMobile: true } : {}) });
    const page = await context.newPage();
    await signInByEmail(page, person.email);
    await page.goto('/contacts');
    await expect(page.getByText('No contacts yet.')).toBeVisible();

    await page.getByRole('button', { name: 'Add a contact' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a contact' });
    await dialog.getByLabel('Email').fill('marta.ruiz@recipient-e2e.test');
    await dialog.getByLabel('Name (optional)').fill('Marta Ruiz');
    await dialog.getByLabel('Role (optional)').fill('Landlord');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(page.getByText('Added Marta Ruiz.', { exact: true })).toBeVisible();
    const list = page.getByRole('list', { name: 'Contacts' });
    await expect(list.getByRole('listitem')).toHaveCount(1);

    await page.getByLabel('Search names, emails and companies').fill('nobody-like-this');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.getByText('No contact matches.')).toBeVisible();
    await page.getByLabel('Search names, emails and companies').fill('marta');
    await page.getByRole('button', { name: 'Search' }).click();
    await list.getByRole('link', { name: 'Marta Ruiz' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Marta Ruiz');
    await expect(page.getByText('Landlord', { exact: true })).toBeVisible();
    if (width === 'phone') await expectPhoneFriendly(page);
    await expectAccessible(page);

    await page.getByLabel('Company').fill('Ruiz Lettings');
    await page.getByLabel('Phone').fill('+33 6 12 34 56 78');
    await page.getByLabel('Tags').fill('home, boiler');
    await page.getByRole('switch', { name: /Shared with your team/ }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved the contact.', { exact: true })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Marta Ruiz');
    await expect(page.getByText('Landlord, Ruiz Lettings')).toBeVisible();
    await expect(page.getByRole('switch', { name: /Shared with your team/ })).toBeChecked();
    await expect(page.getByText('Shared with your team', { exact: true })).toHaveCount(2);
    const contactId = new URL(page.url()).pathname.split('/').at(-1)!;
    const seen = (await as(person)(`/contacts/${contactId}`)).body.contact;
    expect(seen).toMatchObject({ name: 'Marta Ruiz', title: 'Landlord', company: { name: 'Ruiz Lettings' }, scope: 'team', tags: ['home', 'boiler'] });
    expect(seen.phones).toMatchObject([{ number: '+33 6 12 34 56 78', primary: true }]);
    await expect(page.getByRole('button', { name: 'Save changes' })).toBeDisabled();

    await page.getByRole('button', { name: 'Remove Marta Ruiz' }).click();
    await page.getByRole('dialog', { name: 'Remove Marta Ruiz?' }).getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(page).toHaveURL(/\/contacts$/);
    await expect(page.getByText('No contacts yet.')).toBeVisible();
    expect((await as(person)(`/contacts/${contactId}`)).status).toBe(404);
    await context.close();
  });
}
