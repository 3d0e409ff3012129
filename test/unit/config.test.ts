import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 8080,
      host: '127.0.0.1',
      publicOrigin: 'http://localhost:8080',
      serviceMode: 'sandbox',
      quoteTtlSeconds: 120,
    });
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.webhookRetrySeconds).to.deep.equal([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(config.rateLimits).to.deep.equal({
      windowSeconds: 60,
      publicPerMinute: 300,
      signedPerMinute: 600,
      quotesPerMinute: 120,
      swapsPerMinute: 60,
    });
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: '99999', PUBLIC_ORIGIN: 'https://swap.example.com/', DATABASE_URL: 'mysql://x', WEBHOOK_RETRY_SECONDS: '5,soon' });
      expect.fail('expected a ConfigError');
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      const { problems } = err as ConfigError;
      expect(problems).to.have.length(4);
      expect(problems.join('\n'))
        .to.contain('PORT')
        .and.contain('PUBLIC_ORIGIN')
        .and.contain('DATABASE_URL')
        .and.contain('WEBHOOK_RETRY_SECONDS');
    }
  });

  it('accepts fractional sandbox block times for tests', () => {
    expect(loadConfig({ SANDBOX_BLOCK_SECONDS: '0.05' }).sandboxBlockSeconds).to.equal(0.05);
  });

  it('refuses production mode without real adapters and secrets', () => {
    expect(() => loadConfig({ SERVICE_MODE: 'production' })).to.throw(ConfigError, /SECRETS_KEY is required/);
  });
});
