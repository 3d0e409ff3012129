/**
 * The part of sodium-native (libsodium's native bindings, which ship no types of their own) this service
 * calls. Every function writes its result into the first argument and throws when libsodium refuses.
 */
declare module 'sodium-native' {
  /** q = n * p for a scalar n (not clamped) and a point p in the prime-order subgroup; throws if p is not, or the result is the identity. */
  export function crypto_scalarmult_ed25519_noclamp(q: Uint8Array, n: Uint8Array, p: Uint8Array): void;
  /** q = n * G for a scalar n (not clamped); throws when n is zero mod l. */
  export function crypto_scalarmult_ed25519_base_noclamp(q: Uint8Array, n: Uint8Array): void;
  /** r = p + q for two encoded points; throws when either is not a valid point. */
  export function crypto_core_ed25519_add(r: Uint8Array, p: Uint8Array, q: Uint8Array): void;
  /** p = the point 32 uniformly random bytes r map to (Elligator 2, cleared of the cofactor). */
  export function crypto_core_ed25519_from_uniform(p: Uint8Array, r: Uint8Array): void;
  const sodium: {
    crypto_scalarmult_ed25519_noclamp: typeof crypto_scalarmult_ed25519_noclamp;
    crypto_scalarmult_ed25519_base_noclamp: typeof crypto_scalarmult_ed25519_base_noclamp;
    crypto_core_ed25519_add: typeof crypto_core_ed25519_add;
    crypto_core_ed25519_from_uniform: typeof crypto_core_ed25519_from_uniform;
  };
  export default sodium;
}
