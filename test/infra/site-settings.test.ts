import { App } from 'aws-cdk-lib';
import { afterEach, describe, expect, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { parseSiteSettings, readSiteSettings, siteEnvironment } from '../../infra/cdk/site-settings.ts';

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
  reloadConfig();
});

/** What shared/config.ts makes of the given environment, with every site variable unset first. */
function configFrom(env: Record<string, string>) {
  for (const key of Object.keys(siteEnvironment(parseSiteSettings({})))) delete process.env[key];
  Object.assign(process.env, env);
  return reloadConfig() as Record<string, unknown>;
}

const asEnvString = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));

describe('site settings', () => {
  it('default to exactly what shared/config.ts defaults to', () => {
    const defaults = configFrom({});
    for (const [name, value] of Object.entries(siteEnvironment(parseSiteSettings({})))) {
      expect(asEnvString(defaults[name]), name).toBe(value);
    }
  });

  it('reach the functions as variables shared/config.ts parses back to the same values', () => {
    const settings = parseSiteSettings({
      siteUrl: 'https://training.example.com',
      publicRegistration: 'true',
      privateSite: 'false',
      languages: 'en, de',
      appIds: ['app-1', 'app-2'],
      featureFlags: 'dev-unify-completion-status-logic',
      tokenTtlDays: '7',
      logLevel: 'DEBUG',
      mailFrom: 'training@example.com',
    });
    const parsed = configFrom(siteEnvironment(settings));
    expect(parsed.STEPWISE_SITE_URL).toBe('https://training.example.com');
    expect(parsed.STEPWISE_PUBLIC_REGISTRATION).toBe(true);
    expect(parsed.STEPWISE_PRIVATE_SITE).toBe(false);
    expect(parsed.STEPWISE_LANGUAGES).toEqual(['en', 'de']);
    expect(parsed.STEPWISE_APP_IDS).toEqual(['app-1', 'app-2']);
    expect(parsed.STEPWISE_TOKEN_TTL_DAYS).toBe(7);
    expect(parsed.LOG_LEVEL).toBe('DEBUG');
    expect(parsed.STEPWISE_MAIL_FROM).toBe('training@example.com');
  });

  it('accept command-line strings and cdk.json JSON alike', () => {
    const fromCli = parseSiteSettings({ languages: 'en,fr', publicRegistration: 'true', throttleRateLimit: '20' });
    const fromJson = parseSiteSettings({ languages: ['en', 'fr'], publicRegistration: true, throttleRateLimit: 20 });
    expect(fromCli).toEqual(fromJson);
  });

  it('are read from stepwise:* context and reject unknown keys', () => {
    const app = new App({ context: { 'stepwise:siteName': 'Acme Training', 'other:key': 'ignored' } });
    expect(readSiteSettings(app.node).siteName).toBe('Acme Training');
    const typo = new App({ context: { 'stepwise:siteUrll': 'https://x.example.com' } });
    expect(() => readSiteSettings(typo.node)).toThrow(/siteUrll/);
  });

  it.each([
    [{ siteUrl: 'not a url' }, /stepwise:siteUrl/],
    [{ logRetentionDays: 100 }, /stepwise:logRetentionDays/],
    [{ stackPrefix: 'has space' }, /stepwise:stackPrefix/],
    [{ languages: '' }, /stepwise:languages/],
    [{ alarmEmail: 'nobody' }, /stepwise:alarmEmail/],
  ])('reject invalid values: %j', (raw, message) => {
    expect(() => parseSiteSettings(raw)).toThrow(message);
  });
});
