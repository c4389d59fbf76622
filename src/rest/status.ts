// The one table from GridError code to HTTP status. Only rest/ knows HTTP.

import type { GridErrorCode } from '../core/errors.js';

export const STATUS_OF: Readonly<Record<GridErrorCode, number>> = {
  BAD_REQUEST: 400,
  UNKNOWN_ENDPOINT: 400,
  GROUP_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  HEADERS_TOO_LARGE: 431,
  QUEUE_FULL: 503,
  CLUSTER_PASSIVE: 503,
  MEMBER_SHUTTING_DOWN: 503,
  PARTITION_UNAVAILABLE: 503,
  NOT_ENABLED: 500,
  NOT_IMPLEMENTED: 501,
  CONFIG_INVALID: 500,
  INTERNAL: 500,
};
