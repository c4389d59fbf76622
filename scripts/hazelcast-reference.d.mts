// Types of scripts/hazelcast-reference.mjs, for the tests and the bench written in TypeScript.

export declare const HAZELCAST_REST_VERSION: string;
export declare const HAZELCAST_CP_VERSION: string;
export declare const PINNED_VERSIONS: readonly string[];
export declare const ALL_GROUPS: readonly string[];
export declare const JVM_OPTIONS: readonly string[];

export declare class ReferenceUnavailable extends Error {
  constructor(message: string);
}

export declare function jarPath(version: string): string;
export declare function requireJava(): void;
export declare function ensureJar(version: string, opts?: { timeoutMs?: number; quiet?: boolean }): string;
export declare function freePort(): Promise<number>;

export interface HazelcastOptions {
  readonly version?: string;
  readonly port?: number;
  readonly clusterName?: string;
  readonly instanceName?: string;
  readonly groups?: readonly string[];
  /** Ports of the tcp-ip member list (a cluster); default this member's own. */
  readonly members?: readonly number[];
  /** XML inside <hazelcast> (map and queue configs). */
  readonly extraXml?: string;
  /** Extra <properties> (hazelcast.heartbeat.interval.seconds, …). */
  readonly properties?: Readonly<Record<string, string | number | boolean>>;
  /** cp-member-count (0: CP off). */
  readonly cp?: number;
  readonly jvmOptions?: readonly string[];
  readonly startTimeoutMs?: number;
  readonly fetchTimeoutMs?: number;
  readonly readyPath?: string;
}

export declare function hazelcastXml(opts: HazelcastOptions & { port: number }): string;

export interface HazelcastMember {
  readonly version: string;
  readonly port: number;
  readonly pid: number | undefined;
  readonly startMs: number;
  output(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export declare function startHazelcast(opts?: HazelcastOptions): Promise<HazelcastMember>;
