/** The contact's loosely typed JSON parts (company, phones) as the page shows them. */
export const companyOf = (company: Record<string, unknown> | null): string | null => (typeof company?.name === 'string' && company.name ? company.name : null);

export type Phone = { number: string; type?: string; primary?: boolean };
export const phonesOf = (phones: Array<Record<string, unknown>>): Phone[] =>
  phones
    .filter((p) => typeof p.number === 'string' && p.number)
    .map((p) => ({ number: p.number as string, type: typeof p.type === 'string' ? p.type : undefined, primary: p.primary === true }))
    .sort((a, b) => Number(b.primary ?? false) - Number(a.primary ?? false));
