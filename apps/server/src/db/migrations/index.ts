import type { Migration } from 'kysely';
import * as initial from './20261122-001-initial';
import * as streamTokenBinding from './20261124-001-stream-token-binding';
import * as ringKeysAndMessages from './20261124-002-ring-keys-and-messages';
import * as ringFiles from './20261124-003-ring-files';
import * as callsStatusIndex from './20261124-004-calls-status-index';
import * as honestStarterFeatures from './20261124-010-honest-starter-features';
import * as defaultLegalTexts from './20261124-011-default-legal-texts';
import * as hotQueryIndexes from './20261124-020-hot-query-indexes';
import * as ringKeyRevision from './20261128-001-ring-key-revision';
import * as membershipLog from './20261128-002-membership-log';
import * as fileKeyWraps from './20261128-003-file-key-wraps';
import * as logDeactivatedMembers from './20261128-004-log-deactivated-members';
import * as oneActiveSubscription from './20261129-010-one-active-subscription';
import * as ephemeralReads from './20261129-020-ephemeral-reads';
import * as ringJournal from './20261129-030-ring-journal';
import * as ownerNotificationSettings from './20261129-040-owner-notification-settings';
import * as sessionClosing from './20261129-041-session-closing';
import * as invitationExpiry from './20261129-070-invitation-expiry';
import * as memberKeyArgon2id from './20261129-080-member-key-argon2id';
import * as fileMetadata from './20261129-100-file-metadata';
import * as ringMemberTokens from './20261130-070-ring-member-tokens';
import * as frenchPlanFeatures from './20261130-090-french-plan-features';
import * as fileMetaVersion from './20261201-020-file-meta-version';
import * as webPush from './20261201-070-web-push';
import * as lighterMessageIndexes from './20261202-010-lighter-message-indexes';

/** Ordered migrations, bundled statically so the built server needs no migration folder on disk. */
export const migrations: Record<string, Migration> = {
  '20261122-001-initial': initial,
  '20261124-001-stream-token-binding': streamTokenBinding,
  '20261124-002-ring-keys-and-messages': ringKeysAndMessages,
  '20261124-003-ring-files': ringFiles,
  '20261124-004-calls-status-index': callsStatusIndex,
  '20261124-010-honest-starter-features': honestStarterFeatures,
  '20261124-011-default-legal-texts': defaultLegalTexts,
  '20261124-020-hot-query-indexes': hotQueryIndexes,
  '20261128-001-ring-key-revision': ringKeyRevision,
  '20261128-002-membership-log': membershipLog,
  '20261128-003-file-key-wraps': fileKeyWraps,
  '20261128-004-log-deactivated-members': logDeactivatedMembers,
  '20261129-010-one-active-subscription': oneActiveSubscription,
  '20261129-020-ephemeral-reads': ephemeralReads,
  '20261129-030-ring-journal': ringJournal,
  '20261129-040-owner-notification-settings': ownerNotificationSettings,
  '20261129-041-session-closing': sessionClosing,
  '20261129-070-invitation-expiry': invitationExpiry,
  '20261129-080-member-key-argon2id': memberKeyArgon2id,
  '20261129-100-file-metadata': fileMetadata,
  '20261130-070-ring-member-tokens': ringMemberTokens,
  '20261130-090-french-plan-features': frenchPlanFeatures,
  '20261201-020-file-meta-version': fileMetaVersion,
  '20261201-070-web-push': webPush,
  '20261202-010-lighter-message-indexes': lighterMessageIndexes,
};
