import { expect } from 'chai';
import { indexOperations, matchRoute } from '../../../server/http/operations.js';

const document = {
  security: [],
  paths: {
    '/swaps': {
      get: { operationId: 'listSwaps', security: [{ serviceSignature: [], serviceKeyId: [] }] },
      post: { operationId: 'createSwap' },
    },
    '/swaps/{id}': { get: { operationId: 'getSwap', security: [{ bearerAuth: [] }, { serviceSignature: [] }] } },
    '/swaps/{id}/stream': { get: { operationId: 'streamSwap', security: [{ bearerAuth: [] }] } },
    '/health': { get: { operationId: 'getHealth' } },
  },
};

describe('operations', () => {
  describe('indexOperations(document)', () => {
    it("derives each operation's security from its requirements", () => {
      const routes = indexOperations(document);
      const kinds = Object.fromEntries(routes.map((r) => [r.operationId, r.security]));
      expect(kinds).to.deep.equal({
        listSwaps: 'signed',
        createSwap: 'public',
        getSwap: 'tokenOrSigned',
        streamSwap: 'token',
        getHealth: 'public',
      });
    });

    it('refuses an operation without an operationId', () => {
      expect(() => indexOperations({ paths: { '/x': { get: {} } } })).to.throw(/GET \/x has no operationId/);
    });
  });

  describe('matchRoute(routes, method, path)', () => {
    const routes = indexOperations(document);
    it('finds the operation for a templated path', () => {
      const match = matchRoute(routes, 'GET', '/swaps/abc-123/stream');
      expect(match.kind === 'operation' && match.route.operationId).to.equal('streamSwap');
    });
    it('reports the allowed methods of a known path', () => {
      expect(matchRoute(routes, 'DELETE', '/swaps')).to.deep.equal({ kind: 'method_not_allowed', allowed: ['GET', 'POST'] });
    });
    // A spec of one operation per path, and what a method and path reach there: an operation id, or the refusal.
    const overlapping = (paths: Array<[string, 'get' | 'post', string]>) =>
      indexOperations({ security: [], paths: Object.fromEntries(paths.map(([p, m, id]) => [p, { [m]: { operationId: id } }])) });
    const reached = (routes: ReturnType<typeof indexOperations>, method: string, path: string) => {
      const match = matchRoute(routes, method, path);
      return match.kind === 'operation' ? match.route.operationId : match;
    };
    it('matches a concrete path before a templated one, whatever the method', () => {
      const routes = overlapping([
        ['/permanent-routes/challenges', 'post', 'createRouteChallenge'],
        ['/permanent-routes/{id}', 'get', 'getPermanentRoute'],
      ]);
      expect(reached(routes, 'POST', '/permanent-routes/challenges')).to.equal('createRouteChallenge');
      expect(reached(routes, 'GET', '/permanent-routes/challenges')).to.deep.equal({ kind: 'method_not_allowed', allowed: ['POST'] });
      expect(reached(routes, 'GET', '/permanent-routes/0b6f3c1e-2a4d-4c8e-9f10-5e7a9b3c2d1f')).to.equal('getPermanentRoute');
    });
    it('between templates, matches the one with a literal segment first from the left, as the validator does', () => {
      const routes = overlapping([
        ['/{y}/bb', 'get', 'late'],
        ['/a/{x}', 'get', 'early'],
      ]);
      expect(reached(routes, 'GET', '/a/bb')).to.equal('early');
      expect(reached(routes, 'GET', '/c/bb')).to.equal('late');
    });
    it('answers HEAD with the GET operation', () => {
      const head = matchRoute(routes, 'HEAD', '/health');
      expect(head.kind === 'operation' && head.route.operationId).to.equal('getHealth');
    });
    it('does not let a template segment swallow a slash', () => {
      expect(matchRoute(routes, 'GET', '/swaps/a/b').kind).to.equal('not_found');
    });
  });
});
