// The config subsystem's public surface: loaders, matching and types. Nothing else in
// src/config/ is meant to be imported from outside.

export { configFromObject, defaultConfig, findConfigFile, loadConfigFile, parseConfigText, type LoadOptions } from './load.js';
export { findMapConfig, findQueueConfig, findSplitBrainProtection, lockAcquireLimitOf } from './match.js';
export { listenPlan, type ListenPlan } from './endpoints.js';
export { keytoolCommand, tlsPlan, type KeyMaterial, type MutualAuthentication, type SslConfig, type TlsPlan, type TlsProtocol, type TrustMaterial } from './ssl.js';
export { expandMemberList, parseMemberEntry, type MemberAddress } from './member-list.js';
export { ConfigError } from './problems.js';
export { isHostPort } from './validate.js';
export * from './types.js';
