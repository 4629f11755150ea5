/**
 * The site's description for clients that have no token yet: the mobile apps read it first to
 * learn the sign-in method, the guide types and the site's name. Built from configuration
 * only (no table or bucket access), so it answers on private sites too.
 */
import { config, featureEnabled } from '../../shared/config.ts';
import type { SiteInfo } from '../../shared/views/site-views.ts';
import { ssoLoginPath } from '../../shared/accounts/sign-in-methods.ts';

/** `how-to` → `How-to`: the title the apps show for a guide type. */
function typeTitle(type: string): string {
  return type.charAt(0).toUpperCase() + type.slice(1);
}

/** Where the apps' web view starts single sign-on (absolute: the apps open it as it is). */
function ssoLoginUrl(): string | undefined {
  const path = ssoLoginPath();
  return path ? config().STEPWISE_SITE_URL.replace(/\/+$/, '') + path : undefined;
}

export function siteInfo(): SiteInfo {
  const settings = config();
  const host = new URL(settings.STEPWISE_SITE_URL).host;
  return {
    siteid: settings.STEPWISE_SITE_ID,
    // Dozuki's short name is the subdomain (`acme` of acme.dozuki.com); here the host's first label.
    name: host.split('.')[0]!.replace(/:\d+$/, ''),
    domain: host,
    title: settings.STEPWISE_SITE_NAME,
    theme: 'white',
    private: settings.STEPWISE_PRIVATE_SITE,
    description: settings.STEPWISE_SITE_DESCRIPTION,
    // Stepwise has no answers (Q&A) forum.
    answers: false,
    authentication: {
      // Passwords for everyone; with STEPWISE_PASSWORD_LOGIN=admins only break-glass Admins have one.
      standard: settings.STEPWISE_PASSWORD_LOGIN === 'everyone',
      ...(ssoLoginUrl() ? { sso: ssoLoginUrl() } : {}),
      'public-registration': settings.STEPWISE_PUBLIC_REGISTRATION,
    },
    'guide-types': Object.fromEntries(
      settings.STEPWISE_GUIDE_TYPES.map((type) => [type, { title: typeTitle(type), prompt: '' }]),
    ),
    'object-name-singular': 'Category',
    'object-name-plural': 'Categories',
    'feature-mobile-scanner': featureEnabled('mobile-scanner'),
    'google-oauth2-clientid': null,
    logo: null,
  };
}
