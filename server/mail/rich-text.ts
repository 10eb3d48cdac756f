import sanitizeHtml from 'sanitize-html';

/*
 * The HTML alternative of a message the assistant sends (multipart/alternative beside the text
 * the person approved). The text is the message: the HTML says the same words, paragraph for
 * paragraph, and differs in one place only: an assistant whose signature is kept as HTML
 * (`signatureEditorMode: "html"`) signs with that HTML where the text carries its plain form
 * (server/approvals/decorate.ts writes the signature under a `-- ` line). If the person edited the
 * signature away before approving, the HTML has none either.
 */

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Text as HTML: blank lines part paragraphs, single line breaks stay line breaks. */
export function textAsHtml(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => `<p>${escape(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/**
 * A signature's HTML as it may go out: the tags and attributes signatures use (links, images over
 * https, tables, inline styles), nothing that runs or loads from elsewhere unasked.
 */
export function safeSignatureHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: ['p', 'br', 'div', 'span', 'b', 'strong', 'i', 'em', 'u', 'small', 'a', 'img', 'table', 'tbody', 'tr', 'td', 'hr'],
    allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'width', 'height'], '*': ['style'] },
    allowedSchemes: ['https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['https'] },
    allowedStyles: { '*': { color: [/^#[0-9a-f]{3,8}$/i, /^[a-z]+$/i], 'font-size': [/^\d+(px|pt|em)$/], 'font-weight': [/^(bold|normal|\d{3})$/], 'font-family': [/^[\w ,'"-]+$/] } },
  });
}

/** The plain form of an HTML signature, as the staged text shows it. */
export function signatureAsText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The HTML alternative of `text`. With an HTML signature whose plain form follows the last `-- `
 * line of the text, that part is the signature's HTML; whatever follows it (the branding line)
 * stays text.
 */
export function mailHtml(text: string, signatureHtml: string | null): string {
  const body = text.replace(/\r\n/g, '\n');
  const cut = body.lastIndexOf('\n-- \n');
  if (signatureHtml && cut !== -1) {
    const plain = signatureAsText(signatureHtml);
    const after = body.slice(cut + 5);
    if (plain && after.startsWith(plain)) {
      const rest = after.slice(plain.length).trim();
      return [textAsHtml(body.slice(0, cut)), '<p>--&nbsp;</p>', `<div class="signature">${safeSignatureHtml(signatureHtml)}</div>`, rest ? textAsHtml(rest) : '']
        .filter(Boolean)
        .join('\n');
    }
  }
  return textAsHtml(body);
}
