/** Discord error codes that mean "this interaction is gone or already answered": stop quietly. */
export const ALREADY_HANDLED = new Set([10062 /* unknown interaction */, 40060 /* already acknowledged */]);
