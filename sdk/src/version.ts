/** This SDK's own version (package.json "version"; a test keeps the two equal). */
export const SDK_VERSION = '0.2.0';
