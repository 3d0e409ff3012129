/**
 * Partner Swap Service SDK. This release carries the API's generated types and version label; the signing
 * client follows (see CHANGELOG).
 */
export type { paths, components, operations } from './generated/api.js';
export { API_VERSION } from './generated/version.js';
