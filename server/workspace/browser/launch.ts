import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { VIEWPORT, workspaceConfig } from './config';
import { egressProxy } from './egress-proxy';

/** Where one user's workspace lives: a profile Chromium owns and a home folder for their files. */
export type WorkspaceDirs = { base: string; profile: string; home: string; downloads: string; tmp: string; sites: string; incoming: string };

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function workspaceDirs(accountId: string, userId: string): WorkspaceDirs {
  if (!SAFE_ID.test(accountId) || !SAFE_ID.test(userId)) throw new Error('workspace ids must be plain identifiers');
  const base = path.join(workspaceConfig().rootDir, accountId, userId);
  const home = path.join(base, 'home');
  return {
    base,
    profile: path.join(base, 'profile'),
    home,
    downloads: path.join(home, 'Downloads'),
    // Chromium puts its singleton socket below TMPDIR, and a socket path has at most 107 bytes:
    // a short per-user folder in the system's temporary directory, 0700 like the rest.
    tmp: path.join(os.tmpdir(), `steward-ws-${createHash('sha256').update(base).digest('hex').slice(0, 16)}`),
    sites: path.join(home, 'sites'),
    incoming: path.join(base, 'incoming'),
  };
}

/** Every folder 0700: a user's profile is readable by the Steward process alone, never through another user's browser. */
async function ensureDirs(d: WorkspaceDirs) {
  const root = workspaceConfig().rootDir;
  for (const dir of [root, path.dirname(d.base), d.base, d.profile, d.home, d.downloads, d.tmp, d.incoming]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  }
}

/**
 * Chromium's own settings for the profile, written before every start (Chromium keeps the
 * file, so an edit made inside the browser cannot turn these back on for the next session):
 * no password manager, no autofill, no sign-in to the browser, downloads into the user's folder.
 */
async function pinPreferences(d: WorkspaceDirs) {
  const file = path.join(d.profile, 'Default', 'Preferences');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  let prefs: Record<string, any> = {};
  try {
    prefs = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    // first start, or a file Chromium left half-written: start from nothing
  }
  prefs.credentials_enable_service = false;
  prefs.credentials_enable_autosignin = false;
  prefs.profile = { ...prefs.profile, password_manager_enabled: false, password_manager_leak_detection: false };
  prefs.autofill = { ...prefs.autofill, enabled: false, profile_enabled: false, credit_card_enabled: false };
  prefs.signin = { ...prefs.signin, allowed: false, allowed_on_next_startup: false };
  prefs.sync = { ...prefs.sync, requested: false };
  prefs.download = { ...prefs.download, default_directory: d.downloads, prompt_for_download: false };
  prefs.savefile = { ...prefs.savefile, default_directory: d.downloads };
  await writeFile(file, JSON.stringify(prefs), { mode: 0o600 });
}

const FLAGS = [
  '--disable-sync',
  '--allow-browser-signin=false',
  // Also the omnibox's WebUI: headless, nobody sees it, yet each new tab loaded its ~300 chrome://
  // modules in a renderer of its own, competing with the page the person is handed.
  '--disable-features=PasswordManagerOnboarding,AutofillServerCommunication,AutofillEnableAccountWalletStorage,MediaRouter,OptimizationHints,Translate,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI',
  '--password-store=basic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--dns-prefetch-disable',
  // WebRTC would otherwise reach UDP addresses beside the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-dev-shm-usage',
];

/**
 * Starts the user's Chromium on its own profile. Its environment is built from nothing, so
 * no secret of the Steward process (database URL, model keys, master key) reaches the browser.
 */
export async function launchBrowser(d: WorkspaceDirs): Promise<BrowserContext> {
  await ensureDirs(d);
  await pinPreferences(d);
  const cfg = workspaceConfig();
  const proxy = await egressProxy();
  return chromium.launchPersistentContext(d.profile, {
    executablePath: cfg.chromiumPath,
    headless: true,
    chromiumSandbox: cfg.sandbox,
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    acceptDownloads: true,
    downloadsPath: d.incoming,
    proxy: { server: proxy.url },
    args: FLAGS,
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: d.home,
      TMPDIR: d.tmp,
      XDG_CONFIG_HOME: path.join(d.home, '.config'),
      XDG_CACHE_HOME: path.join(d.home, '.cache'),
      LANG: process.env.LANG ?? 'C.UTF-8',
    },
    timeout: 30_000,
    // Steward's own shutdown closes every browser (npm start's stop: stopAllWorkspaces), so each
    // writes its profile (cookies are committed on close). Playwright's signal handlers would
    // close them concurrently, and a browser closed that way lost its last sign-ins.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}
