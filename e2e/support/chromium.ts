/*
 * How Steward's own tests and benchmarks start Debian's Chromium (playwright-core cannot download
 * its own here): no sandbox (the test machine's user namespaces are not the browser's to use), no
 * GPU, QUIC, first-run UI, background networking, component updates or sync; and no omnibox WebUI,
 * which headless Chromium otherwise loads in a renderer of its own for each new page (about 300
 * chrome:// modules, on the same cores as the page under test).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI',
];
