import { createPartnerClient, type PartnerClient, type PartnerClientOptions } from '../../src/index.js';
import type { TestServer } from '../../../test/support/server.js';

/** An SDK client for a partner of its own on `server`, so no swap of one test shows up in another's lists. */
export async function partnerClient(server: TestServer, extra: Partial<PartnerClientOptions> = {}): Promise<PartnerClient> {
  const { keyId, secret } = await server.createPartner();
  return createPartnerClient({
    baseUrl: server.baseUrl,
    audience: server.config.publicOrigin,
    keyId,
    secret,
    userId: 'customer-1',
    ...extra,
  });
}
