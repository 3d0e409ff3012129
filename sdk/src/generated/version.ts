// Generated from spec/openapi.yaml by `make generate`. Do not edit by hand.

/** The API version label (the spec's info.version). */
export const API_VERSION = "1.12.0";
