/**
 * The contract schemas that code loaded on every page validates with (settings, plans, sessions).
 * Never imported statically: `lazySchema` loads this module, and zod with it, on first use.
 */
export {
  ZAdminLoginResponse,
  ZAdminPermissionsResponse,
  ZCustomerLoginResponse,
  ZCustomerStatusResponse,
  ZGetSettingsResponse,
  ZInviteInfoResponse,
  ZPlansResponse,
  ZRingLoginResponse,
  ZRingLoginSelection,
} from '@securering/contract';
