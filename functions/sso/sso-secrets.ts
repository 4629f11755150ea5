/** The providers' secrets sealed at rest (decisions 232, 240): shared with the rotation command. */
export { openProviderSecret, sealProviderSecret } from '../../shared/accounts/provider-secrets.ts';
