/**
 * @securering/e2ee: end-to-end encryption for Rings on WebCrypto (browsers and Node 20+).
 * The server only ever stores what these functions output; see each module for the formats.
 */
export { E2eeError, type E2eeErrorCode, isE2eeError } from './errors';
export {
  type Bytes,
  fromBase64,
  fromBase64Url,
  fromHex,
  randomBytes,
  toBase64,
  toBase64Url,
  toHex,
  utf8Decode,
  utf8Encode,
} from './encoding';
export {
  type Argon2idParams,
  DEFAULT_ARGON2ID,
  DEFAULT_KDF_ITERATIONS,
  HIGH_KDF_ITERATIONS,
  LEGACY_KDF_ITERATIONS,
  LEVEL_PARAMETERS,
  type LevelParameters,
  MAX_KDF_ITERATIONS,
  MIN_PASSPHRASE_LENGTH,
  SECURITY_LEVELS,
  type SecurityLevel,
  isSecurityLevel,
  shouldRotateEpoch,
} from './levels';
export {
  type Identity,
  type PublicIdentity,
  exportPublicIdentity,
  fingerprint,
  generateIdentity,
  importAgreementPublicKey,
  importPublicIdentity,
  importVerifyKey,
  samePublicIdentity,
} from './identity';
export {
  type MemberKeyRecord,
  type RecordKdf,
  type RecoveryCopy,
  hasRecoveryCopy,
  openIdentity,
  openIdentityWithRecoveryKey,
  recordNeedsUpgrade,
  resealRecord,
  sealIdentity,
  upgradeRecord,
  validateNewPassphrase,
  validateRecordShape,
} from './member-record';
export {
  type EpochKey,
  type EpochKeyShare,
  type EpochKeyShareV1,
  type EpochKeyShareV2,
  generateEpochKey,
  parseEpochKeyShare,
  unwrapEpochKey,
  wrapEpochKeyFor,
} from './epoch-keys';
export { RECOVERY_KEY_BYTES, formatRecoveryKey, generateRecoveryKey, parseRecoveryKey } from './recovery-key';
export { deriveConversationKey } from './conversation-keys';
export {
  MAX_ENVELOPE_CIPHERTEXT_BYTES,
  MAX_ENVELOPE_TEXT_LENGTH,
  MAX_MESSAGE_BYTES,
  type MessageHeader,
  type MessageKeyLookups,
  type ParsedEnvelope,
  type WireEnvelope,
  decryptMessage,
  encryptMessage,
  parseEnvelope,
} from './envelope';
export {
  FILE_CHUNK_BYTES,
  FILE_HEADER_BYTES,
  FILE_KEY_BYTES,
  type FileDecryptor,
  type FileEncryptor,
  type SeekableFileEncryptor,
  type WrappedFileKey,
  ciphertextSize,
  createFileDecryptor,
  createFileEncryptor,
  createSeekableFileEncryptor,
  decryptStream,
  encryptStream,
  generateFileKey,
  plaintextSize,
  unwrapFileKey,
  wrapFileKey,
} from './file-stream';
export { MAX_NAME_LENGTH, decryptName, decryptPath, encryptName, encryptPath } from './names';
export {
  type FileMeta,
  type FolderMeta,
  MAX_SEALED_META_LENGTH,
  type OpenedMeta,
  deriveNameTagKey,
  isSealedMeta,
  nameTag,
  opaqueName,
  openFileMeta,
  openFolderMeta,
  sealFileMeta,
  sealFolderMeta,
  signerOfMeta,
} from './file-meta';
export { SIGNATURE_BYTES, signDetached, verifyDetached } from './signing';
export {
  type FormerKeys,
  type LinkSigner,
  type LogMember,
  type LoggedIdentity,
  type MemberRole,
  type MembershipChange,
  type MembershipLink,
  type MembershipLinkType,
  type MembershipState,
  activeLogMembers,
  createGenesis,
  createLink,
  hashLink,
  lastReadersChange,
  mayAdmit,
  parseMembershipLink,
  signingKeysAt,
  signingKeysFrom,
  verifyMembershipLog,
} from './membership-log';
