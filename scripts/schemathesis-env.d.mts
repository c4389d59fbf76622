/** The `schemathesis` executable of the pinned version, installed on first use (throws with `missing` when it cannot be). */
export function schemathesisBin(): string;
export const SCHEMATHESIS_VERSION: string;
