/**
 * Debian's chromium, headless, for the browser tests (test/browser). Installed by
 * infra/ops/install-chromium.sh; nothing is downloaded here. Every flag that makes the browser
 * reach the network on its own is off, and each launch gets a fresh profile.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export const CHROMIUM = '/usr/bin/chromium';

/** axe-core's browser script, injected into a page to check its accessibility. */
export const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Where every browser test saves its screenshots (ignored by git). */
export const SCREENSHOTS = join(process.cwd(), '.tmp', 'screenshots');

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM);
}

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  if (!chromiumInstalled()) throw new Error(`${CHROMIUM} is missing: run infra/ops/install-chromium.sh`);
  const profile = await mkdtemp(join(tmpdir(), 'stepwise-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
