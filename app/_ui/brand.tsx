/*
 * The account's colour. Accounts have a name and no stored colour (docs/decisions.md, issue 45):
 * a hue is derived from the name, so each account's app has its own accent and the same
 * account always looks the same. Tokens in app/global.css fix lightness and chroma, so any hue
 * keeps AA contrast.
 */

/** A stable hue (0–359) of a text. */
export function hueOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) % 360;
}

/** Sets the accent hue of the page to the account's. */
export function BrandStyle({ account }: { account: string }) {
  return <style>{`:root{--brand-h:${hueOf(account)}}`}</style>;
}

/** The account's mark: its logo when set, else its initial on its colour. */
export function BrandMark({ name, logoUrl }: { name: string; logoUrl?: string | null }) {
  if (logoUrl) return <img src={logoUrl} alt="" className="size-7 rounded-md" />;
  return (
    <span aria-hidden="true" className="inline-flex size-7 items-center justify-center rounded-md bg-accent text-sm font-bold text-accent-fg">
      {name.trim().charAt(0).toUpperCase() || 'S'}
    </span>
  );
}
