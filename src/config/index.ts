// The config subsystem's public surface: loaders, matching and types. Nothing else in
// src/config/ is meant to be imported from outside.

export { configFromObject, defaultConfig, findConfigFile, loadConfigFile, parseConfigText, type LoadOptions } from './load.js';
export { findMapConfig, findQueueConfig, findSplitBrainProtection, lockAcquireLimitOf } from './match.js';
export { listenPlan, type ListenPlan } from './endpoints.js';
export { keytoolCommand, tlsPlan, type KeyMaterial, type MutualAuthentication, type SslConfig, type TlsPlan, type TlsProtocol, type TrustMaterial } from './ssl.js';
export { expandMemberList, parseMemberEntry, type MemberAddress } from './member-list.js';
export { ConfigError } from './problems.js';
export { isHostPort } from './validate.js';
// The WAN publisher rules, for addWanConfig's JSON (wan/wan-config-json.ts): one rule, two inputs.
export {
  WAN_NO_TARGET_ENDPOINTS,
  WAN_PUBLISHER_INTS,
  wanHeartbeatTimeoutProblem,
  type WanPublisherIntField,
} from './readers/wan.js';
export * from './types.js';
