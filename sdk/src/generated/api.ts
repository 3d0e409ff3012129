// Generated from spec/openapi.yaml by `make generate`. Do not edit by hand.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check service health
         * @description Reports whether the service can serve requests. The database is probed on every call; when it is
         *     unreachable the answer is `503` with the failed check in `error.details.checks`. `version` is the
         *     contract label (`info.version` of this document). Suitable for load-balancer health checks.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get this OpenAPI document
         * @description Returns this contract, bundled into a single JSON document (OpenAPI 3.1, server `/api/v1`). Use it
         *     to generate clients or to validate traffic. The document is about 165 kB; a request whose
         *     `Accept-Encoding` allows brotli (browsers and `fetch` send it) gets it brotli-compressed
         *     (`Content-Encoding: br`), about a sixth of the size; one that allows gzip but not brotli gets it
         *     gzip-compressed (`Content-Encoding: gzip`), about a fifth.
         *
         *     **Which version is served**: `info.version` of this document is the contract label (see
         *     "Versioning"); `GET /health` reports the same label in `version`. No response carries a version
         *     header, and no request selects a version: the major version is the base path (`/api/v1`), and
         *     within it a client compares `info.version` with the label it was generated from.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signing-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the keys that sign deposit instructions
         * @description The public keys (a JWK Set, RFC 7517) whose signatures of deposit instructions verify: the key
         *     that signs now, first, then every earlier key the operator still lists, so that a swap or route
         *     signed before a key rotation still verifies after it. Public (no credentials) and served to
         *     browsers like the catalogue (see "Browsers (CORS)").
         *
         *     A swap carries `depositInstructionsJws` once its deposit address is allocated, and a permanent
         *     route `addresses_jws` once all its addresses are: compact JWS (RFC 7515) whose protected header
         *     is `{"alg", "kid", "typ"}`. To verify one, split it at the dots, pick the key of this set whose
         *     `kid` is the header's (fetch the set again when none is: a new key has come into use), check the
         *     signature with that key (`alg` `EdDSA`: Ed25519; `ES256`: ECDSA P-256 with SHA-256, the signature
         *     `r || s`), check `typ` (`deposit-instructions+jws` for a swap, `route-addresses+jws` for a route),
         *     then compare the payload with what is shown to the customer: the `DepositInstructions` and
         *     `RouteAddresses` schemas say what each payload holds. Any JOSE library does this (for example
         *     `compactVerify` with `createLocalJWKSet` of `jose`); the partner SDK's `verifyDepositInstructions`
         *     does it all, in Node and in browsers.
         *
         *     The set changes only when the operator rotates keys; it may be cached for the `max-age` of its
         *     `Cache-Control` header (300 s).
         */
        get: operations["getSigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List supported assets and networks
         * @description Lists every asset and network pair the service currently supports. The same currency on different
         *     networks (for example USDT on Ethereum and on Tron) appears once per network. Use `symbol` and
         *     `network` as the asset and network values of every other operation. When `memoNeeded` is true,
         *     deposits and payouts on that network need the memo (named `memoName`, for example a destination tag).
         */
        get: operations["listAssets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pairs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read pair guidance and limits
         * @description Without parameters, returns **compact guidance**: every source asset/network and the destinations
         *     it can be swapped to (`kind: compact`). With both `sourceAsset` and `sourceNetwork`, returns
         *     **destination guidance** for that source: rate types, indicative limits and duration per destination
         *     (`kind: destinations`). Giving only one of the two parameters is `400` (`invalid_request`).
         *
         *     Limits here are guidance computed from USD limits at current prices; they move with the market. The
         *     binding amount, rate and limits come only from `POST /quotes`, whose maximum is also bounded by what the
         *     service's hot wallet on the destination network can pay at that moment (in production), so it can be
         *     lower than the maximum listed here.
         */
        get: operations["getPairs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get an executable quote
         * @description Returns one executable quote for the pair and `sourceAmount`. Show the customer `receiveAmount`,
         *     `feeUsd`, the limits and `expiresAt`, then create the swap with `quoteId` before `expiresAt`
         *     (quotes live 120 seconds by default).
         *
         *     - `rateType: best` (the default) picks the rate type with the higher `receiveAmount`; the quote
         *       states the rate type it applies.
         *     - A **fixed** quote guarantees `receiveAmount` for a deposit of exactly `depositAmount` made before the
         *       swap's deposit deadline. A **floating** quote carries `minimumReceiveAmount`, the slippage bound.
         *     - `refundAddress` is required when `refundMode` is `address`.
         *     - `refundMode: sender` is refused (400 `invalid_refund_address`, `details.field: refundMode`) for a
         *       source asset whose network needs a memo to credit an account (`memoNeeded` in `/assets`: XRP, TON):
         *       a refund sent there without the customer's memo would be lost. Give `refundAddress` and `refundMemo`.
         *       It is refused on ZANO and XMR as well: their transactions do not reveal their sender. Give `refundAddress`.
         *     - Where the deployment screens addresses, a `refundAddress` that screening denies (or holds for review) is
         *       `403 address_denied` with `details.field: refundAddress`. Ask the customer for another address.
         *
         *     `409` codes: `pair_unavailable`, `rate_type_unavailable`, `amount_below_minimum`,
         *     `amount_above_maximum` (the last two carry the limits in `error.details`).
         */
        post: operations["createQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/swaps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List swaps of the partner
         * @description Lists the authenticated partner's swaps, newest first.
         *
         *     **Paged: one call returns at most 100 swaps, not necessarily all of them.** Without `limit` a page
         *     holds 100, the most a page may hold (20 in 1.12.0), so that a client that never pages (the
         *     requirement shows no paging) still sees every swap as long as the partner has at most that many; a
         *     page of 100 is about 150 KB. `nextCursor` is always present: `null` on the last page, otherwise pass it as `cursor` to get
         *     the next page (the SDK's `swaps.listAll()` does). Cursors are opaque and only valid with the same
         *     `status` filter.
         *
         *     **Bulk status:** with `ids` (up to 100 swap ids, comma-separated) the answer holds the caller's swaps
         *     among them, in the order asked, each once, and `nextCursor` is `null`. An id of another partner's swap
         *     or of no swap is left out, exactly alike, so the answer never tells whether someone else's swap
         *     exists. `status` still filters, `limit` does not apply, and `cursor` cannot be combined with `ids`
         *     (`400 invalid_request`). The SDK's `swaps.getMany(ids)` sends it.
         */
        get: operations["listSwaps"];
        put?: never;
        /**
         * Create a one-time swap from a quote
         * @description Creates a swap from an unexpired quote and returns it queued (`202`) with its swap access token.
         *     The body repeats the quote's pair, amount and refund fields (a mismatch is `400 quote_mismatch`)
         *     and adds the destination. An expired or already used quote is `409 quote_expired`: request a new quote.
         *
         *     **The swap is not ready when this returns.** `depositAddress` is allocated right after creation and
         *     may be `null` in this response: poll `GET /swaps/{id}` (or open the stream) until it is present,
         *     then ask the customer to pay exactly `sourceAmount` before `quoteExpiresAt`. Track `terminal` and
         *     `actionRequired`, not only `status`.
         *
         *     **`accessToken` is returned only here** (and identically on an idempotent replay). Store it if
         *     a browser or another service must read the swap without the partner secret.
         *
         *     **Idempotency** (`Idempotency-Key`, scoped to the partner key):
         *
         *     1. Generate and persist the key before calling. Keys are 1 to 255 visible ASCII characters
         *        (`0x21`-`0x7E`); a missing or malformed key is `400 invalid_idempotency_key`.
         *     2. The first successful create binds the key for 24 hours. Repeating the request with the same
         *        key and the same body (compared as parsed JSON: key order and whitespace do not matter) replays
         *        the original status and body with the header `Idempotent-Replayed: true`.
         *     3. The same key with a different body is `409 idempotency_key_reused`.
         *     4. A request that failed (any `4xx` or `5xx`) does not bind the key, so after refreshing an
         *        expired quote you may retry with the same key and the new body.
         *     5. Concurrent identical requests create exactly one swap: the later one waits for the first and
         *        replays its response. If no answer comes within a few seconds it gets `503 service_unavailable`
         *        with `Retry-After`; retry with the same key and body. It is never a `409`: a `409` on this
         *        operation means only an expired or used quote, or a key bound to another body.
         *     6. Two requests with different keys for the same quote make at most one swap: the later one
         *        waits for the first, then gets `409 quote_expired` (the quote is used) or, when no answer comes
         *        within a few seconds, `503 service_unavailable` with `Retry-After`.
         *
         *     **Addresses and memos** are checked for the network with its real checksum: a bad one is
         *     `400 invalid_destination`, `invalid_refund_address` or `invalid_memo`, with the field in
         *     `error.details.field`. An empty-string memo means no memo. Where the destination asset needs a
         *     memo (`Asset.memoNeeded`, e.g. an XRP destination tag: an unsigned 32-bit integer) it is required.
         *
         *     **Address screening.** Where the deployment screens addresses, a `destinationAddress` or
         *     `refundAddress` that screening denies, or holds for review, is `403 address_denied` with the field in
         *     `error.details.field` (nothing is created and the key is not bound). The sender of the deposit is
         *     screened too, where the source network names one (not on ZANO or XMR): a deposit from a sender screening
         *     denies or holds puts the swap in `review` with `failureCode: screening_hold` before it is credited.
         *     Such a deposit is never refunded automatically to its sender; an operator decides.
         */
        post: operations["createSwap"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/swaps/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a swap and its timeline
         * @description Returns the swap and its public timeline (`events`, oldest first). Authenticate either with the
         *     swap's access token (`Authorization: Bearer sat_...`) or with a signed partner request. A token
         *     only reads its own swap (any other id is `401 invalid_token`); a partner only reads its own swaps
         *     (another partner's swap is `404`).
         *
         *     Poll this until `depositAddress` is present before asking the customer to pay, and until
         *     `terminal` is true. `actionRequired` tells who must act: `customer` (pay, or top up an
         *     accumulation), `operator` (support is handling it), `none`.
         */
        get: operations["getSwap"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/swaps/{id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream live swap status (Server-Sent Events)
         * @description A [Server-Sent Events](https://html.spec.whatwg.org/multipage/server-sent-events.html) stream of the
         *     swap's status. Authenticated **only** with the swap access token (`Authorization: Bearer sat_...`);
         *     signed partner requests are not accepted here. The layout:
         *
         *     1. `retry: 3000` - reconnect after 3 seconds when the connection drops.
         *     2. On connect, `event: order` whose `data` is the current `Swap` as JSON.
         *     3. Every timeline entry as `event: status` with `id: <SwapEvent.id>` and the `SwapEvent` as `data`.
         *        On reconnect, send the `Last-Event-ID` header: only entries after that id are replayed (all
         *        entries when the header is absent).
         *     4. `event: order` again on every change of the order itself (deposit address assigned, amounts set).
         *     5. A comment line (`: heartbeat`) every 15 seconds to keep proxies from closing an idle stream.
         *     6. After the terminal `event: status` the server sends the final `event: order` (the finished
         *        order, with `settlementTxHash` and `actualOutputAmount`) and closes the stream. Do not reconnect
         *        once `terminal` is true.
         *     7. A stream also ends after its maximum lifetime (1 hour by default, configurable per deployment up
         *        to a day; each stream ends between 90 % and 100 % of it so that streams opened together do not
         *        reconnect together), after the entries it has sent. Its last event is then `event: reconnect`
         *        with `data: {"reason":"lifetime"}` (no `id`, so your `Last-Event-ID` stays the last status id).
         *        The swap is not terminal: reconnect with `Last-Event-ID` as after a dropped connection; nothing
         *        is lost or repeated. Only a stream ended with this event was ended on purpose: treat one that
         *        ends without it (and without a terminal entry) as a dropped connection, and give up after a few
         *        in a row. Ignore event types you do not know; more may be added.
         *
         *     Concurrent streams are limited per server instance: per access token (3 by default), per client
         *     IP, per partner and in total. A stream past a limit is refused with `429 too_many_streams` before
         *     it starts; `error.details` names the limit (`scope`: `token`, `ip`, `partner` or `instance`) and
         *     its value (`limit`). Close streams you no longer read, and retry after `Retry-After` seconds.
         *
         *     Each `data` field is a single line of JSON. Errors before the stream starts are ordinary JSON
         *     `Error` responses.
         */
        get: operations["streamSwap"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the status webhook
         * @description Returns the partner's webhook URL (or `null` when none is set), whether deliveries are on
         *     (`enabled`), a hint of the signing secret, and the event types delivered. The full secret is never
         *     shown again after it was generated; rotate it with `PUT /partner/webhook` if it is lost. Deliveries
         *     are described under `webhooks` in this document; every attempt is listed by
         *     `GET /partner/webhook/deliveries`.
         */
        get: operations["getPartnerWebhook"];
        /**
         * Set the status webhook URL
         * @description Sets the URL that receives `swap.updated` and `permanent_deposit.updated` deliveries, turns
         *     deliveries on or off, chooses which event types are delivered (`eventTypes`), or removes the webhook.
         *
         *     - On the **first** set, a signing secret `whsec_<base64>` (24 random bytes) is generated and returned
         *       in full in `secret`. Store it: later reads only show `secretHint`.
         *     - `rotateSecret: true` replaces the secret and returns the new one; deliveries (retries of earlier
         *       messages included) are signed with the new secret from then on. Otherwise `secret` is `null` and
         *       the existing secret is kept.
         *     - **Stopping deliveries:** `enabled: false` (default `true`) keeps the URL and the secret but sends
         *       nothing: messages created while deliveries are off are not delivered later, and pending retries
         *       are dropped. `enabled: true` turns deliveries back on for messages created from then on.
         *     - A changed URL applies at once, to retries of earlier messages too.
         *     - **Removing the webhook:** `url: null` deletes the URL and the signing secret. Nothing is delivered
         *       any more (pending retries are dropped, messages created meanwhile are never delivered) and
         *       `GET /partner/webhook` answers as before the first set; a later set with a URL is a first set again
         *       and generates a new secret. The answer shows that state (`url`, `secretHint`, `secret` and
         *       `updatedAt` `null`, `enabled` `false`). Removing when none is set changes nothing and answers the
         *       same. `enabled` is ignored with `url: null`; `rotateSecret: true` with it is `400 invalid_request`
         *       (there is no secret left to rotate).
         *     - The URL must not contain a user name, password or `#fragment`.
         *     - In every mode the URL's host must be, or resolve only to, global unicast addresses: loopback
         *       (`127.0.0.0/8`, `::1`), private (`10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `fc00::/7`),
         *       link-local and cloud metadata (`169.254.0.0/16`, `fe80::/10`), carrier-grade NAT
         *       (`100.64.0.0/10`), unspecified (`0.0.0.0`), multicast, reserved, documentation and anything
         *       outside `2000::/3` are refused with `400 invalid_request` naming the address and why (checked when
         *       deliveries are on). An IPv6 address carrying an IPv4 address is judged by it (mapped
         *       `::ffff:0:0/96`, translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`) or refused outright
         *       (local-use NAT64 `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo `2001::/32`). The check is made again
         *       on every delivery attempt, when the connection is made, because DNS can change; a refused attempt
         *       is recorded and retried like any failed one. Production mode also requires `https`; sandbox mode
         *       accepts `http`. A sandbox server run for local development may lift the address rule
         *       (`WEBHOOK_ALLOW_PRIVATE_TARGETS`); a hosted one does not.
         */
        put: operations["putPartnerWebhook"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/webhook/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook delivery attempts
         * @description Lists the partner's webhook delivery attempts, newest first, with cursor pagination: every attempt
         *     of every message (`swap.updated`, `permanent_deposit.updated`, `webhook.test`), successful or not,
         *     with the HTTP status the receiver answered (`null` when there was no answer: connection refused,
         *     timeout, refused address), the error, the duration and, for a failed attempt that will be retried,
         *     `nextAttemptAt`. Only the status code and the timing of the receiver's answer are kept: never its
         *     reason phrase, headers (such as `Location`) or body; `error` is the service's own description. `eventId` is the `webhook-id` of the message; `eventId=<id>` lists the attempts of
         *     one message.
         *
         *     **Paged: one call returns at most 100 attempts (20 without `limit`), not necessarily all of them.**
         *     `nextCursor` is always present: `null` on the last page, otherwise pass it as `cursor` to get the next
         *     page (the SDK's `webhook.allDeliveries()` does).
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/webhook/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test webhook now
         * @description Sends one `webhook.test` message (see `webhooks`) to the partner's webhook URL at once, signed like
         *     every delivery, and answers with the recorded attempt once the receiver answered (or the attempt
         *     failed or timed out). A test message is attempted once, not retried; the attempt also appears in
         *     `GET /partner/webhook/deliveries`. `200` means the attempt was made: check `succeeded`. The answer
         *     reports the receiver's status code and the timing only, never its reason phrase, headers (such as
         *     `Location`) or body. Without a webhook, or with deliveries stopped (`enabled: false`), the answer is
         *     `409 webhook_not_configured`. No request body.
         *
         *     A test send takes one of the partner's sending slots, as deliveries do (a few requests in flight to
         *     one receiver at most, per instance). When the receiver holds them all (it is slow, or does not answer)
         *     and none frees within a second, the answer is `429 rate_limited` with `details.scope`
         *     `webhook_receiver`, `details.limit` the number of slots, and `Retry-After`; no request is sent.
         */
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/markup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the markup for new permanent routes
         * @description Returns the partner's markup percentage, added to the fee of permanent routes created after it was
         *     set. Until a markup is set, `percent` is `0` and `updatedAt` is `null`.
         */
        get: operations["getPartnerMarkup"];
        /**
         * Set the markup for new permanent routes
         * @description Sets the markup percentage (0 to 3, at most two decimal places) applied to permanent routes created
         *     afterwards; existing routes keep the fee they were created with. The two-decimal rule is checked by
         *     the server (`400 invalid_request`), not by the schema, to avoid floating-point `multipleOf` pitfalls.
         */
        put: operations["putPartnerMarkup"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/earnings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List markup earnings
         * @description Lists markup earnings, newest first: one entry per finished permanent-route order, recorded when its
         *     payout settles. `amount` is the markup the route carried (`markupPercent` of the converted value),
         *     in the destination asset; an order of a route created without markup records `0`. `from` (inclusive) and `to` (exclusive) filter on `createdAt`. `totals` sums every entry
         *     matching the filters (not only this page) per asset and network.
         *
         *     **Paged: one call returns at most 100 earnings (50 without `limit`), not necessarily all of them.**
         *     `nextCursor` is always present: `null` on the last page, otherwise pass it as `cursor` to get the next
         *     page (the SDK's `earnings.listAll()` does); it is only valid with the same filters.
         */
        get: operations["listPartnerEarnings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permanent-routes/challenges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a wallet ownership challenge
         * @description Creates a single-use challenge for the settlement target. Have the wallet that controls
         *     `destinationAddress` sign the exact `challenge` text (a Zano wallet's message signing), then send
         *     the proof to `POST /permanent-routes` before `expires_at` (600 seconds by default).
         *
         *     The challenge is bound to the partner, the partner user (`x-service-user`) and the target. The
         *     target is validated here: an address that does not decode, has a bad checksum, or is a gateway
         *     address (no spend key) is `400 invalid_settlement_target`.
         */
        post: operations["createRouteChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permanent-routes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List permanent routes
         * @description Lists the authenticated partner's permanent routes, newest first.
         *
         *     **Paged: one call returns at most 100 routes without `limit` (up to 1000 with it), not necessarily all
         *     of them.** A partner may have many more routes (20000 by default); a page of 100 is about 150 KB. `next_cursor` is always present:
         *     `null` on the last page, otherwise pass it as `cursor` to get the next page (the SDK's
         *     `routes.listAll()` does).
         */
        get: operations["listPermanentRoutes"];
        put?: never;
        /**
         * Create or recover a permanent route
         * @description Verifies the wallet-signed challenge and creates the route, or **recovers** it: the same partner
         *     user (`externalUserId`) with the same verified destination asset and address returns the existing
         *     route, also with `201`. A route stays bound to its settlement target for its whole life.
         *
         *     Checks, in order:
         *
         *     1. `externalUserId` equals the `x-service-user` header (else `400 external_user_mismatch`).
         *     2. `challengeId` is known, unexpired and unused, was issued to this partner and user for this
         *        target, and `message` equals its text byte for byte (else `400 invalid_challenge`).
         *     3. Where the deployment screens addresses, screening allows `destinationAddress` (else
         *        `403 address_denied`, `details.field: destinationAddress`; one held for review is refused too).
         *     4. `publicKey` is the spend public key of `destinationAddress` and `signature` is a valid wallet
         *        signature of `message` by it (else `403 ownership_not_verified`).
         *     5. A new route must keep the partner within its route quota (20000 by default; else
         *        `409 route_limit_reached`, with the quota in `details.limit`, and the challenge stays unused).
         *        Recovering an existing route is always allowed.
         *
         *     Use the returned `addresses` (only non-empty entries; an empty string means the address is still
         *     being allocated), `fee`, `min_swap_usd` and `max_auto_swap_usd`.
         */
        post: operations["createPermanentRoute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permanent-routes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a permanent route
         * @description Returns one of the partner's routes with its current accumulations. Another partner's route is `404`.
         */
        get: operations["getPermanentRoute"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permanent-routes/{id}/deposits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deposits of a permanent route
         * @description Lists the route's deposits, newest first, each with its confirmation progress and, once it belongs
         *     to an order, the public swap status of that order (`orderId`; the order is also readable with
         *     `GET /swaps/{id}`). `accumulations` always describes the whole route.
         *
         *     **Paged: one call returns at most 100 deposits without `limit` (up to 500 with it), not necessarily
         *     all of them**; a page of 100 is about 80 KB. `next_cursor` is always present: `null` on the last page, otherwise pass it as `cursor` to get
         *     the next page (the SDK's `routes.listAllDeposits()` does).
         *
         *     The route's addresses are polled every 60 s (every 5 s inside an `expect-deposit` window, and every
         *     block while a deposit is confirming). A route idle for a day (no deposit, no `expect-deposit` call) is
         *     polled less often: the interval doubles after each further idle day, up to once an hour, so a payment
         *     to a long-idle route is found within an hour at worst; any deposit or `expect-deposit` call brings it
         *     back to 60 s. Call `expect-deposit` when a payment is due: routes inside a window are polled ahead of
         *     every other route. A confirmed deposit worth more than `max_auto_swap_usd` is
         *     converted alone and its order waits in `review`. Other confirmed deposits below `min_swap_usd` wait
         *     with status `accumulating` in their same-asset bucket (see `accumulations`) until later deposits of
         *     the same asset and network reach the threshold; then all deposits of the bucket convert in one
         *     order at the route's fee (`fee.percent` of the value, at least `fee.floor_usd`).
         *
         *     A payment below its asset's dust floor (about one US cent; the network's own dust limit where that
         *     is higher, e.g. 546 satoshi) is listed with status `dust` (terminal, `reasonCode`
         *     `below_dust_floor`, its confirmation count as first seen): it is recorded, but never valued,
         *     accumulated, converted or announced by webhook.
         *
         *     A waiting deposit's `accumulated_usd`, `threshold_usd`, `remaining_usd` and `valued_at` are its
         *     bucket's, as in `accumulations`, and change for every deposit of the bucket when it grows.
         */
        get: operations["listRouteDeposits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permanent-routes/{id}/expect-deposit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Announce an expected deposit
         * @description Call this just before the customer pays into one of the route's addresses. The addresses are polled
         *     at once (usually within 50 ms: an instance starts its polls of due routes at least 50 ms apart, so
         *     calling this in a loop does not poll more often), then every 5 s instead of every 60 s (by default)
         *     for the next 1800 seconds, so the deposit is seen sooner. Calling it again extends the window from
         *     now. Routes inside a window are polled ahead of all other due routes, and the call ends any idle
         *     backoff (a route idle for days is otherwise polled as rarely as once an hour). No request body.
         */
        post: operations["expectRouteDeposit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/deposits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a customer deposit (sandbox only)
         * @description Simulates a customer paying `amount` of `asset` on `network` to `address`, which must be a deposit
         *     address the service allocated (a swap's `depositAddress` or a permanent route address); an unknown
         *     address is `404`. The simulated chain then confirms the transaction block by block, so the swap or
         *     route moves through its statuses exactly as with a real payment (webhooks and stream included).
         *
         *     To reach particular statuses: pay less or more than the quote to trigger refunds (each returns the
         *     payment less the network's payout fee; one too small to cover more than that fee and the dust floor
         *     goes to `review` instead); pay above a
         *     route's `max_auto_swap_usd` to reach `review`; pay after the deposit deadline to test
         *     `lateDepositPolicy`; pay a route less than `min_swap_usd` to see `accumulating`.
         *
         *     A payment to a swap's address is looked at at once. A payment to a permanent route's address is
         *     found by the route's polling, like a real one: call `POST /permanent-routes/{id}/expect-deposit`
         *     first to have it seen within seconds.
         *
         *     Mounted only when `SERVICE_MODE=sandbox`; otherwise `404`.
         */
        post: operations["createSandboxDeposit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/swaps/{id}/review-decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide a swap in manual review (sandbox only)
         * @description Plays the operator for a swap in status `review`: `approve` continues the swap (`exchanging`),
         *     `refund` returns the deposit less the network's payout fee at the market price then (`refunded`; the
         *     answer comes once the refund is broadcast), `fail` ends it as `failed`. A swap that is not in `review`
         *     is `409 invalid_state`, and so is a decision that would pay twice: `approve` while a refund is
         *     committed, `refund` while the payout is signed (approve to broadcast the same payout again, or fail),
         *     or `refund` of a deposit a reorganisation removed (for a route order, `approve` or `refund` while any
         *     of its deposits is out of the chain); and `refund` of a deposit (for a route order, any of its deposits)
         *     that the fee would leave at or below the asset's dust floor: nothing would go back. Mounted only when
         *     `SERVICE_MODE=sandbox`; otherwise `404`.
         */
        post: operations["decideSandboxReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/swaps/{id}/failures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Inject a provider failure (sandbox only)
         * @description Arms a one-shot simulated provider failure for the swap at `stage`. It fires when the swap reaches
         *     that stage, or at once if the swap is already there:
         *
         *     - `exchange`: the exchange fails and the deposit is refunded, less the network's payout fee
         *       (`exchanging` to `refunded`).
         *     - `payout`: the chain refuses the payout's broadcast for good and an operator must act (to `review`,
         *       `actionRequired: operator`, `settlementTxHash` back to `null`). The refused payout paid nothing, so
         *       the review's `approve` pays again under a new payout, `refund` returns the deposit, `fail` fails it.
         *
         *     Arming the failure that is already armed changes nothing (the swap's `updatedAt` stays) and answers
         *     `200` with the swap. A terminal swap, or one already past the stage (a payout already signed: the
         *     swap shows its `settlementTxHash`), is `409 invalid_state`. An action that causes a refund answers
         *     once the refund is broadcast (the swap is then `refunded`). Mounted
         *     only when `SERVICE_MODE=sandbox`; otherwise `404`.
         */
        post: operations["injectSandboxFailure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/swaps/{id}/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a swap's deadline to now (sandbox only)
         * @description A test clock for one swap, so deadlines can be tested without waiting them out:
         *
         *     - `deadline: deposit` moves the deposit deadline (`quoteExpiresAt`) to now. A `waiting` swap with no
         *       deposit becomes `overdue` at once; a deposit made afterwards is a late deposit and follows
         *       `lateDepositPolicy`.
         *     - `deadline: expiry` ends the overdue grace period now: an `overdue` swap becomes `expired`.
         *
         *     Returns the swap after the change. A swap in another status is `409 invalid_state`. Mounted only when
         *     `SERVICE_MODE=sandbox`; otherwise `404`.
         */
        post: operations["advanceSandboxSwapClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/networks/{network}/reorganizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reorganise a simulated chain (sandbox only)
         * @description Removes the last `blocks` blocks of the simulated chain of `network`, as a chain reorganisation on a
         *     real network would. The payments mined in them leave the chain: the sandbox does not mine them
         *     again, so their confirmations are gone for good. What that does to a swap:
         *
         *     - a swap whose deposit is removed before it was credited goes back to `waiting` (or `overdue`, once
         *       its deposit deadline has passed), and the deposit is listed in `deposits` with `status: removed`;
         *     - a swap whose deposit is removed after it was credited goes to `review` (`actionRequired: operator`);
         *     - an extra payment that is removed before its refund counts for nothing;
         *     - a permanent route's deposit that is removed before it joined an order goes back to `confirming`
         *       with `confirmationCount: 0` and leaves its accumulation (it would confirm again, were it mined);
         *     - a route order (a swap) whose converted deposit is removed before it finished goes to `review`
         *       (`failureCode: deposit_removed`), and a payout not yet signed never goes out.
         *
         *     New blocks follow at the usual pace (`SANDBOX_BLOCK_SECONDS`) on top of the new tip. An unknown
         *     `network` is `400 invalid_request` (`details.field: network`). Mounted only when
         *     `SERVICE_MODE=sandbox`; otherwise `404`.
         */
        post: operations["reorganizeSandboxChain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "swap.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Swap changed (sent to your webhook URL)
         * @description Sent to the partner's webhook URL (`PUT /partner/webhook`) whenever one of its swaps changes: each new
         *     timeline entry (`data.event`) and each change of the order itself such as an allocated deposit
         *     address (`data.event` is `null`).
         *
         *     **Verifying a delivery** ([Standard Webhooks](https://www.standardwebhooks.com/)):
         *
         *     1. Take the secret `whsec_<base64>` and base64-decode the part after `whsec_`: that is the HMAC key.
         *     2. Compute `base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>"))` over the raw
         *        request body bytes, before any JSON parsing.
         *     3. `webhook-signature` is a space-separated list of `v1,<base64>` signatures; accept the delivery if
         *        any of them equals yours (compare in constant time).
         *     4. Reject deliveries whose `webhook-timestamp` is more than 5 minutes from your clock.
         *
         *     **Delivery**: at least once, from a transactional outbox. Any non-`2xx` answer (redirects are not
         *     followed: a `3xx` is a failed attempt), a connection error or a timeout (10 s by default) is retried
         *     after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (the schedule is configurable per
         *     deployment); every attempt is recorded and listed by `GET /partner/webhook/deliveries`. A server
         *     instance sends a partner's receiver at most a few deliveries at a time (4 by default); later ones
         *     wait their turn, which is not an attempt, so a slow receiver delays its own deliveries only.
         *     `webhook-id` is the same on every attempt of one message, so use it to drop duplicates;
         *     `webhook-timestamp` is the time of the attempt, `timestamp` in the body the time of the change.
         *     Deliveries may arrive out of order: compare `data.order.updatedAt`, or read `GET /swaps/{id}` for
         *     the current state. `data` carries the order and the event exactly as `GET /swaps/{id}` returns them.
         */
        post: operations["swapUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "permanent_deposit.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Permanent-route deposit changed (sent to your webhook URL)
         * @description Sent to the partner's webhook URL when a deposit to one of its permanent routes is first seen, gains
         *     confirmations, starts or leaves an accumulation, or changes the public status of its order. `data`
         *     uses the field names of `GET /permanent-routes/{id}/deposits`: `route_id` and the deposit.
         *
         *     Only the deposit that changed is sent: when a bucket grows, the new deposit's message carries the
         *     bucket's new figures, and the deposits already waiting in it are not sent again (read them, with the
         *     bucket's current figures, from `GET /permanent-routes/{id}/deposits`). A payment below the dust floor
         *     (status `dust`) is never sent.
         *
         *     Signing, retries and at-least-once delivery are exactly as for `swap.updated`: verify
         *     `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, key =
         *     base64-decoded part of `whsec_<base64>`), drop duplicates by `webhook-id`, and answer `2xx` quickly.
         */
        post: operations["permanentDepositUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Test message (sent on request)
         * @description Sent once, not retried, when the partner calls `POST /partner/webhook/test`, so a receiver can be
         *     checked end to end. Signed exactly like every other delivery; answer `2xx`. Receivers should accept
         *     and ignore event types they do not know.
         */
        post: operations["webhookTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @description The body of every `4xx` and `5xx` response. Branch on `error.code`; `message` is for humans and may
         *     change. `code` is deliberately a plain string, not an enum: new codes may be added within `v1`
         *     without a breaking change, so handle an unknown code by its HTTP status.
         *
         *     | `code` | Status | Meaning |
         *     |---|---|---|
         *     | `invalid_request` | 400 | A body, query, path or header value fails the schema; `details.errors` lists `{path, message}` |
         *     | `malformed_json` | 400 | The body is not valid JSON |
         *     | `invalid_idempotency_key` | 400 | `Idempotency-Key` is missing or not 1-255 visible ASCII characters |
         *     | `quote_mismatch` | 400 | The swap's pair, amount, rate type or refund fields differ from its quote |
         *     | `invalid_destination` | 400 | `destinationAddress` is not a valid address of the destination network; `details.field` names it |
         *     | `invalid_refund_address` | 400 | `refundAddress` is not a valid address of the source network, or `refundMode: sender` was given for a source asset that needs a memo, or on ZANO (`details.field: refundMode`) |
         *     | `invalid_memo` | 400 | A memo is missing where the asset needs one, or is not in the form its network allows; `details.field` names it |
         *     | `invalid_settlement_target` | 400 | The route destination does not decode, has a bad checksum or is a gateway address |
         *     | `invalid_challenge` | 400 | The challenge is unknown, expired, used, foreign, or `message` differs from it |
         *     | `external_user_mismatch` | 400 | `externalUserId` differs from the `x-service-user` header |
         *     | `authentication_required` | 401 | Credentials are missing or a signed header is malformed |
         *     | `unknown_key` | 401 | No partner key with this ID |
         *     | `invalid_signature` | 401 | The request signature does not match |
         *     | `timestamp_out_of_window` | 401 | `x-service-timestamp` is more than 300 s from server time |
         *     | `nonce_reused` | 401 | The nonce was already used by this key |
         *     | `partner_disabled` | 401 | The partner of the key is disabled |
         *     | `invalid_token` | 401 | The swap access token is wrong or belongs to another swap |
         *     | `ownership_not_verified` | 403 | The wallet signature does not prove ownership of the destination |
         *     | `address_denied` | 403 | Address screening does not allow a destination or refund address (`POST /quotes`, `POST /swaps`, `POST /permanent-routes`); `details.field` names it |
         *     | `browser_not_allowed` | 403 | Only on a CORS preflight (`OPTIONS`) of a signed operation: the partner secret must never be in a browser; call the operation from your backend |
         *     | `origin_not_allowed` | 403 | Only on a CORS preflight (`OPTIONS`) from an origin the deployment does not list |
         *     | `not_found` | 404 | Unknown path, or no such resource for this partner (another partner's resource is also `404`) |
         *     | `method_not_allowed` | 405 | The path exists but not with this method (the `Allow` header lists the methods) |
         *     | `pair_unavailable` | 409 | The pair cannot be quoted or swapped now |
         *     | `rate_type_unavailable` | 409 | The requested rate type is not offered for the pair |
         *     | `amount_below_minimum` | 409 | Below the pair minimum; `details` carries the limits |
         *     | `amount_above_maximum` | 409 | Above the pair maximum; `details` carries the limits |
         *     | `quote_expired` | 409 | The quote expired or was already used |
         *     | `idempotency_key_reused` | 409 | The `Idempotency-Key` is bound to a different request body |
         *     | `route_unavailable` | 409 | A permanent route cannot be created now |
         *     | `route_limit_reached` | 409 | The partner has as many permanent routes as its quota allows; `details.limit` is the quota |
         *     | `invalid_state` | 409 | Sandbox only: the swap's status does not allow the requested action |
         *     | `webhook_not_configured` | 409 | `POST /partner/webhook/test` without a webhook, or with deliveries stopped |
         *     | `payload_too_large` | 413 | The body exceeds 64 KiB |
         *     | `unsupported_media_type` | 415 | The body is not `application/json` |
         *     | `rate_limited` | 429 | Rate limit exceeded (or, on `POST /partner/webhook/test`, the webhook receiver holds every sending slot); see `Retry-After` |
         *     | `too_many_streams` | 429 | `GET /swaps/{id}/stream` past a limit of concurrent streams; `details.scope` (`token`, `ip`, `partner`, `instance`) and `details.limit` name it; see `Retry-After` |
         *     | `internal_error` | 500 | Unexpected failure; no internals are exposed |
         *     | `service_unavailable` | 503 | Temporarily unavailable (database, price source or another dependency). On `POST /swaps` also: the request waited a few seconds for another one holding what it needs (an identical request with the same `Idempotency-Key`, another swap from the same quote) and gave up; nothing was created, retry after `Retry-After` with the same key and body |
         */
        Error: {
            /** @description The error: a machine-readable `code`, a `message` for humans, and optional `details`. */
            error: {
                /** @description Machine-readable error code (see the table above). Not an enum on purpose. */
                code: string;
                /** @description Human-readable explanation. Do not parse it. */
                message: string;
                /** @description Code-specific structured information, for example `errors` for `invalid_request` or the limits for `amount_below_minimum`. */
                details?: {
                    [key: string]: unknown;
                };
                /** @description The `x-request-id` of this request. */
                requestId?: string;
            };
        };
        /**
         * @description Answer of `GET /health` while the service can take requests: its version, its time and the checks of its
         *     dependencies. An unreachable database answers `503` instead.
         */
        Health: {
            /**
             * @description Always `ok` in a `200` response.
             * @constant
             */
            status: "ok";
            /** @description The contract label, equal to `info.version` of this document. */
            version: string;
            /**
             * Format: date-time
             * @description Server time of the check.
             */
            time: string;
            /** @description The dependencies checked for this answer. */
            checks: {
                /** @description The database probe. */
                database: {
                    /**
                     * @description `ok` in a `200` answer: a database that fails the probe makes `/health` answer `503`.
                     * @enum {string}
                     */
                    status: "ok" | "fail";
                    /**
                     * Format: int32
                     * @description Round-trip time of the database probe in milliseconds.
                     */
                    latencyMs: number;
                };
                /** @description Production only (absent in the sandbox): each network served, as its node answered the last probe (every few seconds). A network whose status is `fail` answers `503` to new quotes on it; swaps already running on it wait. A failing network does not fail `/health`: the service still takes requests for the others. */
                networks?: components["schemas"]["NetworkHealth"][];
            };
        };
        /** @description One network's node, as the last probe found it. */
        NetworkHealth: {
            network: components["schemas"]["NetworkCode"];
            /**
             * @description `fail` when the node did not answer, answered something the service cannot believe, is on another chain, or its tip is older than the network's limit (`<NET>_MAX_TIP_AGE_SECONDS`, ten block times by default).
             * @enum {string}
             */
            status: "ok" | "fail";
            /**
             * Format: int64
             * @description Height of the node's tip; absent when it never answered.
             */
            height?: number;
            /**
             * Format: int64
             * @description Seconds since the tip block's timestamp.
             */
            tipAgeSeconds?: number;
            /**
             * @description The hot wallet: `low` when some asset of the network it pays out cannot cover a minimum quote, `unknown` when its balance could not be read.
             * @enum {string}
             */
            balance?: "ok" | "low" | "unknown";
            /**
             * @description Why the status is `fail`, in the service's own words: `node unreachable`, `node error`, `malformed answer` (an answer that breaks its shape or the amount rule), `answer too large`, `tip too old`, `chain id mismatch` (an EVM node on another chain than configured), `chain mismatch` (a Bitcoin-family node on another chain), `not probed yet`. More may be added. Never a node's URL, host or error text: those go to the service's logs only.
             * @example node unreachable
             */
            reason?: string;
            /**
             * Format: date-time
             * @description When the probe ran.
             */
            checkedAt: string;
        };
        /** @description Asset symbol as listed by `GET /assets` (`Asset.symbol`), for example `BTC`, `USDT`, `fUSD`. */
        AssetSymbol: string;
        /** @description Network as listed by `GET /assets` (`Asset.network`), for example `BTC`, `ETH`, `TRX`, `ZANO`. */
        NetworkCode: string;
        /**
         * @description Positive decimal string in units of the asset (not base units): no sign, no exponent, no leading
         *     zeros except a single `0` before the point, 1 to 18 fraction digits, at least one non-zero digit.
         *     For example `0.015`.
         */
        SourceAmount: string;
        /** @description Non-negative decimal string (no sign, no exponent). Amounts are never JSON numbers. */
        DecimalAmount: string;
        /** @description A blockchain address in its native format (visible ASCII, no spaces). */
        Address: string;
        /**
         * @description A blockchain address in its native format, as a request field. The server checks it for its network,
         *     checksum included, and answers a specific code (`invalid_destination`, `invalid_refund_address`),
         *     so the schema only bounds its length.
         */
        AddressInput: string;
        /**
         * @description Memo, destination tag or comment as a request field, where the network needs one (`Asset.memoNeeded`).
         *     An empty string means no memo. The server checks its form for the network (`invalid_memo`; an XRP
         *     destination tag is an unsigned 32-bit integer).
         */
        MemoInput: string;
        /** @description Memo, destination tag or payment ID required by some networks (see `Asset.memoNeeded`). */
        Memo: string;
        /** @description Transaction hash in the network's native notation. */
        TxHash: string;
        /** @description Opaque swap identifier (currently a UUID). */
        SwapId: string;
        /**
         * @description Public status of a swap (also used by `SwapEvent` and `PermanentDeposit`). Each status comes with
         *     fixed `terminal`, `actionRequired`, `reasonCode` and `retryable` values:
         *
         *     | status | terminal | actionRequired | reasonCode | retryable | meaning |
         *     |---|---|---|---|---|---|
         *     | `waiting` | no | `customer` (`none` until `depositAddress` is set) | `payment_required` | no | waiting for the deposit |
         *     | `confirming` | no | `none` | `confirming` | no | deposit seen, confirmations accumulating |
         *     | `exchanging` | no | `none` | `processing` | no | being exchanged |
         *     | `sending` | no | `none` | `processing` | no | payout signed (`settlementTxHash` known) and broadcast, waiting for its confirmation |
         *     | `accumulating` | no | `customer` | `accumulating` | no | permanent route: below the minimum, waiting for more of the same asset |
         *     | `overdue` | no | `none` | `payment_required` | no | deposit deadline passed; a late deposit is still handled by `lateDepositPolicy` |
         *     | `review` | no | `operator` | `manual_review` | no | held for manual review (for example above the automatic maximum) |
         *     | `finished` | yes | `none` | `completed` | no | paid out: the payout is confirmed on its chain |
         *     | `refunded` | yes | `none` | `refunded` | yes | deposit returned |
         *     | `expired` | yes | `none` | `payment_required` | yes | no deposit arrived in time |
         *     | `failed` | yes | `operator` | `support_required` | no | stopped; support handles the funds |
         *
         *     `retryable` tells whether repeating the same API action is safe and useful, for the action that made
         *     the swap: true only when making it again (a new quote, then a new swap) is safe because no customer
         *     funds are held for this one. It is the status's value above, but `false` while any payment to the
         *     swap's address is unresolved (a `deposits` entry `confirming`, `refunding` or `review`).
         *
         *     Allowed transitions (no others occur):
         *
         *     - `waiting` → `confirming` | `overdue` | `review` | `failed`
         *     - `overdue` → `confirming` | `expired`
         *     - `confirming` → `confirming` (more confirmations) | `waiting` | `overdue` (a reorganisation removed the deposit before it was credited) | `exchanging` | `accumulating` | `refunded` | `review` | `failed`
         *     - `accumulating` → `exchanging` | `review`
         *     - `exchanging` → `sending` | `refunded` | `review` | `failed`
         *     - `sending` → `finished` | `failed` | `review` (the payout's broadcast was ambiguous, a broadcast of a payout the chain had accepted before was refused, or the deposit left the chain after it was credited)
         *     - `review` → `exchanging` | `refunded` | `failed`
         *
         *     `waiting` becomes `overdue` at `quoteExpiresAt` (1800 s after creation by default); `overdue` becomes
         *     `expired` after a further 86400 s. A deposit outside the limits is refunded; one above the automatic
         *     maximum goes to `review`. A refund returns the deposit less the network's payout fee (see
         *     `Swap.refundAmount`); a deposit that fee would leave at or below the asset's dust floor is held for an
         *     operator instead (`review`).
         * @enum {string}
         */
        SwapStatus: "waiting" | "confirming" | "exchanging" | "sending" | "accumulating" | "finished" | "refunded" | "failed" | "expired" | "overdue" | "review";
        /**
         * @description Who must act next. `customer` - pay or add funds; `operator` - support is handling it; `none` - wait.
         * @enum {string}
         */
        ActionRequired: "none" | "customer" | "operator";
        /**
         * @description Stable reason for the current status (see `SwapStatus` for the mapping).
         * @enum {string}
         */
        SwapReasonCode: "payment_required" | "confirming" | "processing" | "accumulating" | "completed" | "refunded" | "support_required" | "manual_review";
        /**
         * @description `fixed` guarantees the receive amount for an exact deposit; `floating` follows the market within `minimumReceiveAmount`.
         * @enum {string}
         */
        RateType: "fixed" | "floating";
        /**
         * @description `sender` refunds to the address the deposit came from; `address` refunds to `refundAddress` (with
         *     `refundMemo` where the source asset needs one). `sender` is not accepted for a source asset with
         *     `memoNeeded` (XRP, TON), nor on ZANO, whose transactions do not reveal their sender: 400
         *     `invalid_refund_address` with `details.field: refundMode`.
         * @enum {string}
         */
        RefundMode: "sender" | "address";
        /** @description One asset on one network that swaps can take or pay out, with what partners show for it. */
        Asset: {
            symbol: components["schemas"]["AssetSymbol"];
            /** @description Display name, for example `Tether USD`. */
            name: string;
            network: components["schemas"]["NetworkCode"];
            /** @description Display code of the network or token standard, for example `ERC20` or `TRC20`. */
            networkCode: string;
            /**
             * Format: uri
             * @description Absolute URL of the asset icon.
             */
            icon: string;
            /** @description True when deposits and payouts on this network need a memo. */
            memoNeeded?: boolean;
            /** @description What the network calls the memo, for example `Destination tag` or `Payment ID`. */
            memoName?: string;
        };
        /** @description Answer of `GET /assets`: every supported asset and network combination. */
        AssetCatalog: {
            /**
             * Format: int32
             * @description Number of distinct asset symbols.
             */
            currencyCount: number;
            /**
             * Format: int32
             * @description Number of asset and network combinations (entries of `assets`).
             */
            assetNetworkCount: number;
            /** @description Every asset and network combination, one entry each; `currencyCount` and `assetNetworkCount` count them. */
            assets: components["schemas"]["Asset"][];
        };
        /** @description Compact guidance without parameters, destination guidance with both parameters. */
        PairGuidance: components["schemas"]["CompactPairGuidance"] | components["schemas"]["DestinationGuidance"];
        /** @description Every source and the destinations it can be swapped to. */
        CompactPairGuidance: {
            /**
             * @description `compact` - the form `GET /pairs` answers without `sourceAsset` and `sourceNetwork`. (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            kind: "compact";
            /**
             * Format: int32
             * @description Number of entries in `sources`.
             */
            sourceCount: number;
            /**
             * Format: int32
             * @description Total number of source-destination pairs.
             */
            pairCount: number;
            /** @description Each source asset and network, with the destinations it can be swapped to. */
            sources: {
                asset: components["schemas"]["AssetSymbol"];
                network: components["schemas"]["NetworkCode"];
                /** @description Destinations as `ASSET/NETWORK`. */
                destinations: string[];
            }[];
        };
        /**
         * @description Destinations of one source with indicative limits. Limits are guidance derived from USD limits at
         *     current prices; the binding amount and limits come from `POST /quotes`.
         */
        DestinationGuidance: {
            /**
             * @description `destinations` - the form `GET /pairs` answers with `sourceAsset` and `sourceNetwork`. (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            kind: "destinations";
            /** @description The source asset and network that were asked for. */
            source: {
                asset: components["schemas"]["AssetSymbol"];
                network: components["schemas"]["NetworkCode"];
            };
            /** @description Each destination the source can be swapped to, with indicative limits and timing. */
            destinations: {
                asset: components["schemas"]["AssetSymbol"];
                network: components["schemas"]["NetworkCode"];
                /** @description The rate types offered for this pair; a quote may ask only for these (or `best`). */
                rateTypes: components["schemas"]["RateType"][];
                /** @description Indicative minimum in units of the source asset. */
                minimumSourceAmount: components["schemas"]["DecimalAmount"];
                /** @description Indicative maximum in units of the source asset. */
                maximumSourceAmount: components["schemas"]["DecimalAmount"];
                /** @description Minimum in USD. */
                minimumUsd: components["schemas"]["DecimalAmount"];
                /** @description Maximum in USD. */
                maximumUsd: components["schemas"]["DecimalAmount"];
                /**
                 * Format: int32
                 * @description Typical minutes from deposit to payout.
                 */
                estimatedMinutes: number;
            }[];
        };
        /**
         * @description A request for an executable quote, for exactly one of `sourceAmount` (what the customer sends) and
         *     `destinationAmount` (what the customer receives: an exact-output quote). Giving both or neither is
         *     `400 invalid_request`. `refundAddress` is required when `refundMode` is `address`.
         */
        QuoteRequest: {
            sourceAsset: components["schemas"]["AssetSymbol"];
            sourceNetwork: components["schemas"]["NetworkCode"];
            destinationAsset: components["schemas"]["AssetSymbol"];
            destinationNetwork: components["schemas"]["NetworkCode"];
            /** @description What the customer sends, in the source asset (at most its precision). */
            sourceAmount?: components["schemas"]["SourceAmount"];
            /**
             * @description Exact output: what the customer must receive, in the destination asset (at most its precision).
             *     The quote is then fixed-rate (`rateType` `best` or `fixed`; `floating`, or a pair without a fixed
             *     rate, is `409 rate_type_unavailable`): its `receiveAmount` is exactly this, and its
             *     `sourceAmount`/`depositAmount` the least deposit that pays it out after the fees, rounded up to
             *     the source's precision (the rounding stays with the service; the customer never receives less).
             *     Create the swap with that `sourceAmount`. Both sides are held to the pair's limits; a
             *     `409 amount_below_minimum`/`amount_above_maximum` names them in both assets.
             */
            destinationAmount?: components["schemas"]["SourceAmount"];
            /**
             * @description `best` (default) picks the rate type with the higher receive amount; the quote states the one applied.
             * @default best
             * @enum {string}
             */
            rateType?: "best" | "fixed" | "floating";
            refundMode: components["schemas"]["RefundMode"];
            /** @description Refund address on the source network. Required when `refundMode` is `address`. */
            refundAddress?: components["schemas"]["AddressInput"];
            /** @description Memo for refunds on networks that need one. */
            refundMemo?: components["schemas"]["MemoInput"];
        };
        /**
         * @description An executable price for one pair and amount. Create the swap from it (`quoteId`) before it expires; a quote
         *     makes at most one swap.
         */
        Quote: {
            /**
             * Format: uuid
             * @description Quote ID; send it as `quoteId` to `POST /swaps`.
             */
            id: string;
            /** @description The requested amount; for an exact-output quote, the deposit that pays out `destinationAmount`. */
            sourceAmount: components["schemas"]["DecimalAmount"];
            /** @description The exact amount the customer must deposit. */
            depositAmount: components["schemas"]["DecimalAmount"];
            /** @description Amount paid out (guaranteed for a fixed quote, estimated for a floating one), rounded down to the destination asset's precision. */
            receiveAmount: components["schemas"]["DecimalAmount"];
            /** @description Floating quotes - the lowest amount paid out (slippage bound). `null` for fixed quotes. */
            minimumReceiveAmount?: string | null;
            /** @description Total fee in USD, included in `receiveAmount`. */
            feeUsd?: string | null;
            /** @description Destination units per source unit. */
            rate: components["schemas"]["DecimalAmount"];
            /**
             * Format: date-time
             * @description Deadline to **create the swap** from this quote (120 s after the quote by default); after it
             *     `POST /swaps` answers `409 quote_expired`. It is not the customer's payment deadline: the swap
             *     created from the quote gets its own, later deadline for the deposit, `Swap.quoteExpiresAt`.
             */
            expiresAt: string;
            rateType: components["schemas"]["RateType"];
            /** @description Pair minimum in source units, if any. */
            minimumSourceAmount?: string | null;
            /**
             * @description Pair maximum in source units, if any. In production it is also bounded by what the hot wallet can still
             *     promise to you (its balance less payouts under way, live reservations of every partner's quotes and
             *     swaps, and your share limit), so a quote within it can be honoured.
             */
            maximumSourceAmount?: string | null;
            /**
             * Format: int32
             * @description Typical minutes from deposit to payout.
             */
            estimatedMinutes?: number | null;
            /** @description What happens to a deposit after the deadline - `refund` (returned, less the network's payout fee) or `market_rate` (swapped at the then current rate). */
            lateDepositPolicy?: string;
        };
        /** @description Answer of `POST /quotes`. */
        QuoteResponse: {
            quote: components["schemas"]["Quote"];
        };
        /**
         * @description What happens to a **fixed-rate** deposit, seen before `quoteExpiresAt` and confirmed in time, whose
         *     amount differs from `depositAmount` (a floating swap always converts what arrived; a late deposit
         *     follows `lateDepositPolicy`). A deposit outside the pair's limits is refunded whatever the policy
         *     (`failureCode: amount_out_of_range`).
         *
         *     | policy | underpayment | overpayment |
         *     |---|---|---|
         *     | `refund` (default, the behaviour before this field) | refunded, less the network fee (`failureCode: amount_mismatch`) | the same |
         *     | `market_rate` | what arrived is exchanged at the market rate when it is credited | the same |
         *     | `refund_excess` | refunded, less the network fee (`failureCode: amount_mismatch`) | `expectedOutputAmount` is paid for `depositAmount`, and the excess goes back to the refund destination less the network fee (`excessRefundAmount`, `excessRefundTxHash`); an excess whose refund would not exceed the asset's dust floor after the fee is kept, and the timeline says so |
         *
         *     The timeline entry of the step the policy decided has a `note` saying which rule applied and why.
         *     A refunded excess needs somewhere to go: with `refundMode: sender`, the address the deposit came from.
         * @default refund
         * @enum {string}
         */
        AmountMismatchPolicy: "refund" | "market_rate" | "refund_excess";
        /**
         * @description The quote request fields (same rules) plus the quote ID and destination. `rateType` is required and
         *     must be the quote's applied rate type (`best` is not allowed). `refundAddress` is required when
         *     `refundMode` is `address`.
         */
        SwapRequest: {
            /**
             * Format: uuid
             * @description ID of an unexpired, unused quote.
             */
            quoteId: string;
            sourceAsset: components["schemas"]["AssetSymbol"];
            sourceNetwork: components["schemas"]["NetworkCode"];
            destinationAsset: components["schemas"]["AssetSymbol"];
            destinationNetwork: components["schemas"]["NetworkCode"];
            sourceAmount: components["schemas"]["SourceAmount"];
            rateType: components["schemas"]["RateType"];
            refundMode: components["schemas"]["RefundMode"];
            /** @description Refund address on the source network. Required when `refundMode` is `address`. */
            refundAddress?: components["schemas"]["AddressInput"];
            /** @description Memo for refunds on networks that need one. */
            refundMemo?: components["schemas"]["MemoInput"];
            /** @description Payout address on the destination network. */
            destinationAddress: components["schemas"]["AddressInput"];
            /** @description Payout memo on networks that need one. */
            destinationMemo?: components["schemas"]["MemoInput"];
            amountMismatchPolicy?: components["schemas"]["AmountMismatchPolicy"];
        };
        /**
         * @description One public key of `GET /signing-keys`, a JWK (RFC 7517): Ed25519 (`kty: OKP`, `alg: EdDSA`) or P-256
         *     (`kty: EC`, `alg: ES256`, with `y`). `kid` is its RFC 7638 thumbprint (SHA-256, base64url).
         */
        SigningKey: {
            /**
             * @description The key type.
             * @enum {string}
             */
            kty: "OKP" | "EC";
            /**
             * @description The curve.
             * @enum {string}
             */
            crv: "Ed25519" | "P-256";
            /** @description The public key (OKP) or its x coordinate (EC), base64url. */
            x: string;
            /** @description The y coordinate of an EC key, base64url; absent on OKP keys. */
            y?: string;
            /** @description The key id the JWS header names (the key's RFC 7638 thumbprint). */
            kid: string;
            /**
             * @description The JWS algorithm the key signs with.
             * @enum {string}
             */
            alg: "EdDSA" | "ES256";
            /**
             * @description Signatures.
             * @constant
             */
            use: "sig";
        };
        /** @description The keys whose signatures verify (a JWK Set), the one signing now first. */
        SigningKeySet: {
            keys: components["schemas"]["SigningKey"][];
        };
        /**
         * @description The payload of a swap's `depositInstructionsJws` (UTF-8 JSON). Each field other than `signedAt` has
         *     the value of the swap's field of the same name when it was signed; `destination` is the payout
         *     address. A verifier compares at least `swapId`, `depositAddress`, `depositMemo` and `depositAmount`
         *     with what the customer is shown.
         */
        DepositInstructions: {
            swapId: components["schemas"]["SwapId"];
            sourceAsset: components["schemas"]["AssetSymbol"];
            sourceNetwork: components["schemas"]["NetworkCode"];
            /** @description Where the customer pays. */
            depositAddress: string;
            /** @description The memo the deposit must carry; `null` when none. */
            depositMemo: string | null;
            /** @description What the customer pays, in units of the source asset. */
            depositAmount: components["schemas"]["DecimalAmount"];
            destinationAsset: components["schemas"]["AssetSymbol"];
            destinationNetwork: components["schemas"]["NetworkCode"];
            /** @description The payout address. */
            destination: components["schemas"]["Address"];
            /** @description The payout memo; `null` when none. */
            destinationMemo: string | null;
            /** @description What the swap pays out (fixed rate) or is expected to (floating). */
            expectedOutputAmount: string | null;
            /** @description Floating rate - the lowest amount paid out; `null` at a fixed rate. */
            minimumOutputAmount: string | null;
            rateType: components["schemas"]["RateType"];
            /**
             * Format: date-time
             * @description Pay before this time (the deposit deadline).
             */
            quoteExpiresAt: string;
            /**
             * Format: date-time
             * @description A fixed rate holds for a deposit confirmed before this time.
             */
            confirmationDeadline: string | null;
            /**
             * Format: date-time
             * @description When the service signed the instructions.
             */
            signedAt: string;
        };
        /** @description The payload of a permanent route's `addresses_jws` (UTF-8 JSON). */
        RouteAddresses: {
            /**
             * Format: uuid
             * @description The route's `route_id`.
             */
            routeId: string;
            /** @description The route's `external_user_id`. */
            externalUserId: string;
            /**
             * @description The asset paid out to the verified wallet.
             * @enum {string}
             */
            destinationAsset: "fUSD" | "ZANO";
            /**
             * @description Always ZANO.
             * @constant
             */
            destinationNetwork: "ZANO";
            /** @description The verified settlement wallet every conversion pays out to. */
            destinationAddress: string;
            /** @description Every deposit address of the route, keyed `ASSET/NETWORK` as the route's `addresses`. */
            addresses: {
                [key: string]: string;
            };
            /**
             * Format: date-time
             * @description When the service signed the addresses.
             */
            signedAt: string;
        };
        /** @description The order record of a swap, with its public status. */
        Swap: {
            id: components["schemas"]["SwapId"];
            /** @description Origin of the order - `standard` (a one-time swap from `POST /swaps`) or `permanent` (an order of a permanent route). */
            mode: string;
            sourceAsset: components["schemas"]["AssetSymbol"];
            sourceNetwork: components["schemas"]["NetworkCode"];
            destinationAsset: components["schemas"]["AssetSymbol"];
            destinationNetwork: components["schemas"]["NetworkCode"];
            /** @description Payout address. */
            destination: components["schemas"]["Address"];
            /** @description Memo attached to the payout, on destination networks that need one; `null` when none was given. */
            destinationMemo?: string | null;
            refundMode?: components["schemas"]["RefundMode"];
            /** @description Where a refund goes on the source network when `refundMode` is `address`; `null` with `refundMode: sender`. */
            refundAddress?: string | null;
            /** @description Memo attached to a refund sent to `refundAddress`; `null` when none was given. */
            refundMemo?: string | null;
            rateType: components["schemas"]["RateType"];
            /** @description The amount the swap was quoted for. */
            sourceAmount: components["schemas"]["DecimalAmount"];
            /**
             * @description Exactly what the customer must send to `depositAddress`, in units of the source asset (the quote's
             *     `depositAmount`). Fees are taken from the payout side, so today it equals `sourceAmount`. A fixed-rate
             *     swap that receives a different amount is refunded (`failureCode: amount_mismatch`); a floating one is
             *     exchanged at the market rate for what arrived. Optional: absent on records that predate it.
             */
            depositAmount?: components["schemas"]["DecimalAmount"];
            /** @description Estimated receive amount. */
            expectedOutputAmount?: string | null;
            /** @description Final amount received by the destination. */
            actualOutputAmount?: string | null;
            /** @description Floating rate - the lowest amount paid out. */
            minimumOutputAmount?: string | null;
            /** @description Where the customer pays. `null` or absent while the address is being allocated; do not ask for payment before it is set. */
            depositAddress?: string | null;
            /** @description Memo the customer must attach to the deposit, on networks that need one. */
            depositMemo?: string | null;
            /**
             * @description The deposit instructions signed by the service: a compact JWS (RFC 7515) with the protected header
             *     `{"alg": "EdDSA" or "ES256", "kid", "typ": "deposit-instructions+jws"}` and the `DepositInstructions`
             *     payload (the swap id, source asset and network, deposit address and memo, deposit amount,
             *     destination asset, network, address and memo, expected and minimum output, rate type, deadlines and
             *     the signing time, as this swap shows them). Verify it with the key of `GET /signing-keys` whose
             *     `kid` is the header's, and compare the payload with the address shown to the customer before they
             *     pay (the SDK's `verifyDepositInstructions` does both). Signed once, when the deposit address is
             *     allocated: every read, webhook and stream shows the same bytes. `null` while the address is being
             *     allocated, and on route orders (`mode: permanent`), whose address the route's `addresses_jws`
             *     signs.
             */
            depositInstructionsJws?: string | null;
            /**
             * @description The transaction of the swap's own deposit (`deposits` entry with `role: swap`); `null` until it is seen,
             *     and again if a reorganisation removed it before it was credited.
             */
            sourceTxHash?: string | null;
            /** @description The payout transaction on the destination network; `null` until the payout is signed (status `sending`). */
            settlementTxHash?: string | null;
            /**
             * @description The transaction that returned the swap's own deposit; `null` unless the swap was refunded. Refunds of
             *     extra payments are in `deposits`.
             */
            refundTxHash?: string | null;
            /**
             * @description What the refund of the swap's own deposit returned (for a permanent-route order, the refunds of all
             *     its deposits together), in units of the source asset; `null` unless the swap was refunded. A refund
             *     returns the deposit less the source network's payout fee (the fee quotes deduct for a payout on that
             *     network, converted at the source asset's market price when the refund is committed, rounded up to the
             *     asset's precision), the remainder rounded down; it is the amount of the refund's transaction, fixed
             *     when the refund is committed. A deposit that fee would leave at or below the asset's dust floor is
             *     not refunded: it is held for an operator (the swap goes to `review` with the `failureCode` it would
             *     have been refunded with, and its `deposits` entry is `review`).
             */
            refundAmount?: string | null;
            /**
             * @description Total fee in USD, taken from the payout side (already deducted from `expectedOutputAmount`): the quote's
             *     `feeUsd` for a one-time swap, the route's fee terms for a permanent-route order.
             */
            feeUsd?: string | null;
            /**
             * Format: date-time
             * @description Deadline for the customer's **deposit** (1800 s after the swap's creation by default): pay
             *     `sourceAmount` before it; after it the swap becomes `overdue`, and a late deposit follows
             *     `lateDepositPolicy`. Despite its name it is not the quote's `Quote.expiresAt`, which only bounds
             *     when the swap could be created (120 s after the quote by default) and is over once the swap
             *     exists; the name is the one the integration requirement gives. An order of a permanent route is
             *     paid before it exists: there it is the order's creation time.
             */
            quoteExpiresAt?: string | null;
            /**
             * Format: date-time
             * @description Until when a deposit seen before `quoteExpiresAt` may be **confirmed** (3600 s after
             *     `quoteExpiresAt` by default). A fixed rate holds only for a deposit seen before `quoteExpiresAt` and
             *     given its `requiredConfirmations` before this; a deposit still unconfirmed at this moment is a late
             *     deposit, and `lateDepositPolicy` decides (a fixed rate: refunded, `failureCode: late_deposit`). So a
             *     customer cannot hold a fixed rate open with a deposit that is slow to confirm. For a floating swap it
             *     only ends the hot wallet's reservation for it. `null` for an order of a permanent route.
             */
            confirmationDeadline?: string | null;
            /**
             * Format: int32
             * @description Confirmations the source network needs before the deposit counts.
             */
            requiredConfirmations?: number | null;
            /** @description `refund` or `market_rate`, see `Quote.lateDepositPolicy`. */
            lateDepositPolicy?: string | null;
            /**
             * @description The swap's `AmountMismatchPolicy` (`refund`, `market_rate` or `refund_excess`), as given when it was
             *     created (`refund` when none was); `null` for an order of a permanent route, which always converts
             *     at the market.
             */
            amountMismatchPolicy?: string | null;
            /**
             * @description With `amountMismatchPolicy: refund_excess` and an overpayment: what goes back of the excess
             *     (`receivedAmount` less `depositAmount`), less the source network's payout fee, in the source asset.
             *     Set when the refund of the excess is committed; `null` otherwise.
             */
            excessRefundAmount?: string | null;
            /** @description The transaction returning the excess (see `excessRefundAmount`), once the chain accepted it; `null` before and otherwise. */
            excessRefundTxHash?: string | null;
            status: components["schemas"]["SwapStatus"];
            /** @description True when this record will not change again. */
            terminal: boolean;
            actionRequired: components["schemas"]["ActionRequired"];
            /**
             * @description Whether repeating the same API action is safe and useful, for the action that made this swap: true
             *     only when making it again (a new quote, then a new swap with a new `Idempotency-Key`) is safe because
             *     no customer funds are held for this one. It follows the status (true for `refunded` and `expired`),
             *     except that it is false while any payment to the swap's deposit address is unresolved (a `deposits`
             *     entry in `confirming`, `refunding` or `review`), whatever the status says.
             */
            retryable: boolean;
            reasonCode: components["schemas"]["SwapReasonCode"];
            /**
             * @description Machine-readable cause when the swap was refunded, failed, or went to `review`; `null` otherwise.
             *     Within v1 new codes may be added: treat an unknown one as its status says. A swap whose refund would
             *     return nothing above the dust floor after the network fee (`refundAmount`) goes to `review` with the
             *     code it would have been refunded with. The codes:
             *
             *     | code | meaning |
             *     |---|---|
             *     | `amount_out_of_range` | the deposit was below the pair's minimum or above its maximum: refunded |
             *     | `amount_mismatch` | a fixed-rate deposit differed from `depositAmount`, and `amountMismatchPolicy` refunds it (`refund`, or an underpayment under `refund_excess`): refunded |
             *     | `late_deposit` | the deposit arrived after `quoteExpiresAt`, or a fixed-rate deposit was not confirmed before `confirmationDeadline`, and `lateDepositPolicy` is `refund` |
             *     | `slippage_exceeded` | a floating swap would pay out less than `minimumOutputAmount`: refunded |
             *     | `exchange_failed` | the conversion failed: refunded |
             *     | `payout_failed` | the payout paid nothing (refused for good, never buildable, reverted, its nonce cancelled) or its broadcast's outcome is unknown: `review` for an operator |
             *     | `refund_failed` | the refund could not be sent: `review` for an operator |
             *     | `deposit_removed` | a reorganisation removed a deposit that was already credited: `review` |
             *     | `insufficient_liquidity` | the hot wallet could not cover the payout when it was due (production): `review`; an operator funds it and approves, or refunds |
             *     | `refunded_by_review`, `failed_by_review` | an operator's decision on a swap in `review` |
             *     | `screening_hold` | address screening denied the deposit's sender, or held it for review (or the screening provider failed and the deployment fails closed): `review` before the deposit is credited (a permanent-route deposit: its own route order, in `review`); it is never refunded automatically to that sender, an operator decides |
             */
            failureCode?: string | null;
            /**
             * @description Version (date) of the terms the swap was created under.
             * @example 2026-06-01
             */
            termsVersion: string;
            /**
             * @description Every payment to the swap's deposit address (and memo), oldest first: the swap's own deposit
             *     (`role: swap`) and any other payment (`role: extra`: a second payment, or one that arrived after
             *     the swap ended). No payment is ignored. Extra payments are returned automatically to the refund
             *     destination once confirmed (`refundAddress` with `refundMemo`, or the sender in `refundMode:
             *     sender`), less the network's payout fee (`refundAmount`), or wait for an operator (`status: review`)
             *     where no safe destination exists or the fee would leave no more than the dust floor. The swap
             *     keeps its status while this happens (a terminal swap stays terminal); each change of an entry
             *     sends `swap.updated`. While an entry is `confirming`, `refunding` or `review`, `retryable` is
             *     false. Optional: absent where the server does not list deposits (records that predate it).
             */
            deposits?: components["schemas"]["SwapDeposit"][];
            /**
             * Format: date-time
             * @description When the swap was created.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description When the order last changed: a status, an amount, the deposit address or a `deposits` entry.
             */
            updatedAt: string;
        };
        /**
         * @description One payment to a swap's deposit address, with its confirmations and what became of it. Every output to the
         *     address is listed, whatever its asset: a payment of another asset than the swap's source asset (USDC to a
         *     USDT swap's address, ETH to a token swap's) is never converted; it is an `extra`, returned to its sender in
         *     its own asset where the network names one (EVM, Bitcoin family), less its network's payout fee, and
         *     otherwise held for an operator (`review`).
         */
        SwapDeposit: {
            /** @description The transaction that paid the deposit address. */
            txHash: components["schemas"]["TxHash"];
            /**
             * Format: int32
             * @description The output (or log) index of the payment within its transaction; `txHash` and `outputIndex` identify it.
             */
            outputIndex: number;
            /** @description The asset paid; the swap's `sourceAsset` for every payment it can convert. */
            asset: components["schemas"]["AssetSymbol"];
            /** @description The network of the payment (the swap's `sourceNetwork`). */
            network: components["schemas"]["NetworkCode"];
            /** @description The amount paid, in units of `asset`. */
            amount: components["schemas"]["DecimalAmount"];
            /**
             * Format: int32
             * @description Confirmations so far (the chain's tip height minus the payment's block height, plus one; `0` while unmined).
             */
            confirmationCount: number;
            /**
             * Format: int32
             * @description Confirmations the network needs before the payment counts.
             */
            requiredConfirmations: number;
            /**
             * @description `swap` - the payment the swap converts (the first one while the swap was `waiting` or `overdue`);
             *     `extra` - any other payment: a second payment, or one that arrived after the swap ended.
             * @enum {string}
             */
            role: "swap" | "extra";
            /**
             * @description - `confirming` - seen, not yet confirmed `requiredConfirmations` times.
             *     - `credited` - the swap's own deposit, confirmed and counted by the swap.
             *     - `refunding` - a refund of this payment is on its way (`refundTxHash` once it is broadcast).
             *     - `refunded` - the refund was sent (`refundTxHash`, `refundAmount`).
             *     - `review` - no safe destination for a refund, or the payment less the network fee would not exceed
             *       the asset's dust floor, or its refund failed or was broadcast with an unknown outcome; waits for an
             *       operator, who has it returned.
             *     - `removed` - a chain reorganisation took the payment out; it counts for nothing (the swap went
             *       back to `waiting` or `overdue` if it was its deposit and not yet credited, or to `review` if it
             *       was credited).
             * @enum {string}
             */
            status: "confirming" | "credited" | "refunding" | "refunded" | "review" | "removed";
            /** @description The transaction returning this payment, once broadcast; otherwise `null`. */
            refundTxHash: string | null;
            /**
             * @description The amount returned, once the refund is committed; otherwise `null` (also for a payment held for an
             *     operator). An automatic refund returns the payment less the source network's payout fee (the fee quotes
             *     deduct for a payout on that network, converted at the source asset's market price when the refund is
             *     committed, rounded up to the asset's precision), the remainder rounded down; a payment that fee would
             *     leave at or below the asset's dust floor is held instead (`review`). It is the amount of the refund's
             *     transaction, fixed when the refund is committed. An operator's return of a held payment to an address
             *     they give returns it whole.
             */
            refundAmount: string | null;
            /**
             * Format: date-time
             * @description When the service first saw the payment.
             */
            seenAt: string;
        };
        /** @description One entry of a swap's public timeline. */
        SwapEvent: {
            /** @description Event ID; also the SSE `id` of the stream. */
            id: string;
            orderId: components["schemas"]["SwapId"];
            status: components["schemas"]["SwapStatus"];
            /** @description True when `status` is terminal: no timeline entry follows this one, and the stream closes after it. */
            terminal: boolean;
            actionRequired: components["schemas"]["ActionRequired"];
            /**
             * @description `Swap.retryable` when the entry was recorded: whether repeating the action that made the swap (a new
             *     quote, then a new swap) was safe and useful because no customer funds were held for it. The status's
             *     value, but false while any payment to the swap's deposit address was unresolved (a deposit
             *     `confirming`, `refunding` or `review`). A later change of a deposit adds no entry: `Swap.retryable`
             *     has the current value.
             */
            retryable: boolean;
            /** @description Reason code; a free string here (new values may appear), usually one of `SwapReasonCode`. */
            reasonCode: string;
            /**
             * Format: int32
             * @description Confirmations of the swap's deposit when the entry was recorded; set on `confirming` entries, otherwise `null`.
             */
            confirmationCount?: number | null;
            /**
             * Format: int32
             * @description Confirmations the deposit needs; set on `waiting` and `confirming` entries, otherwise `null`.
             */
            requiredConfirmations?: number | null;
            /** @description The swap's deposit transaction when the entry was recorded (`Swap.sourceTxHash`); `null` before the deposit was seen. */
            sourceTxHash?: string | null;
            /** @description The payout transaction when the entry was recorded (`Swap.settlementTxHash`); `null` before the payout was signed. */
            settlementTxHash?: string | null;
            /**
             * @description The transaction returning the swap's deposit when the entry was recorded (`Swap.refundTxHash`); `null`
             *     unless it was refunded.
             */
            refundTxHash?: string | null;
            /**
             * @description Why this step was taken, in a sentence, where a rule of the swap's decided it: today the
             *     `amountMismatchPolicy` applied to a fixed-rate deposit of another amount (which rule, the amounts, and
             *     what follows). For people, not for parsing; `null` on other entries.
             */
            note?: string | null;
            /**
             * Format: date-time
             * @description When the change this entry records happened.
             */
            occurredAt: string;
        };
        /** @description One page of the partner's swaps, newest first (`GET /swaps`). */
        SwapList: {
            /** @description The swaps of this page, newest first. */
            orders: components["schemas"]["Swap"][];
            /** @description Cursor of the next page, `null` on the last page. */
            nextCursor: string | null;
        };
        /** @description Answer of `POST /swaps`: the new swap and its access token. */
        SwapCreated: {
            order: components["schemas"]["Swap"];
            /** @description The swap access token (bearer), returned only by this operation. */
            readonly accessToken: string;
        };
        /** @description Answer of `GET /swaps/{id}`: the swap and its public timeline. */
        SwapDetail: {
            order: components["schemas"]["Swap"];
            /** @description The public timeline, oldest first. */
            events: components["schemas"]["SwapEvent"][];
        };
        /** @description A swap without its timeline, as the sandbox actions answer it after acting. */
        SwapOrder: {
            order: components["schemas"]["Swap"];
        };
        /**
         * @description The settlement target a challenge is issued for: the Zano wallet, and the asset that a permanent route's
         *     conversions pay out to it.
         */
        PermanentRouteTarget: {
            /**
             * @description The asset paid out to the settlement wallet.
             * @enum {string}
             */
            destinationAsset: "fUSD" | "ZANO";
            /**
             * @description Permanent routes settle on the Zano network only.
             * @constant
             */
            destinationNetwork: "ZANO";
            /**
             * @description Zano address (base58) of the settlement wallet. Checked by the server: an address that does not
             *     decode, has a bad checksum or is a gateway address is `400 invalid_settlement_target`.
             */
            destinationAddress: string;
            /** @description Partner's label for the route, at most 80 characters. */
            label?: string;
        };
        /** @description The settlement target plus the ownership proof for it. */
        PermanentRouteRequest: {
            /**
             * @description The asset paid out to the settlement wallet; must equal the challenged target's.
             * @enum {string}
             */
            destinationAsset: "fUSD" | "ZANO";
            /**
             * @description Permanent routes settle on the Zano network only.
             * @constant
             */
            destinationNetwork: "ZANO";
            /** @description Zano address (base58) of the settlement wallet; must equal the challenged address. */
            destinationAddress: string;
            /**
             * @description Partner's label for the route, at most 80 characters. When omitted, the route takes the label given
             *     with its challenge, if any. Ignored when the route is recovered (the existing route keeps its label).
             */
            label?: string;
            /** @description Partner-controlled customer identifier; must equal the `x-service-user` header. */
            externalUserId: string;
            /**
             * Format: uuid
             * @description `challenge_id` from `POST /permanent-routes/challenges`.
             */
            challengeId: string;
            /** @description The challenge text exactly as issued (ASCII, LF line endings). */
            message: string;
            /** @description The address's spend public key, 32 bytes as hex (upper or lower case). */
            publicKey: string;
            /** @description The wallet signature of `message`, 64 bytes (`c || r`) as hex (upper or lower case). */
            signature: string;
        };
        /**
         * @description A single-use text to sign with the settlement wallet, proving its ownership before the route is created (`POST
         *     /permanent-routes/challenges`).
         */
        PermanentChallenge: {
            /**
             * Format: uuid
             * @description The challenge's ID; send it as `challengeId` with the signed `challenge` to `POST /permanent-routes`.
             */
            challenge_id: string;
            /** @description The exact text to sign with the settlement wallet (ASCII, LF line endings, no trailing newline). */
            challenge: string;
            /**
             * Format: date-time
             * @description Use the challenge before this time (600 s after issue by default). It is single-use.
             */
            expires_at: string;
        };
        /** @description A same-asset bucket of confirmed deposits below the route minimum. */
        PermanentAccumulation: {
            asset: components["schemas"]["AssetSymbol"];
            network: components["schemas"]["NetworkCode"];
            /** @description Observed USD value waiting in this bucket. */
            accumulated_usd: components["schemas"]["DecimalAmount"];
            /** @description Published processing threshold (the route's `min_swap_usd`). */
            threshold_usd: components["schemas"]["DecimalAmount"];
            /** @description Additional USD value of the same asset and network needed to start the conversion. */
            remaining_usd: components["schemas"]["DecimalAmount"];
            /**
             * @description Only deposits of this same asset and network count towards the threshold.
             * @constant
             */
            same_asset_required: true;
            /**
             * Format: date-time
             * @description Time of the USD valuation.
             */
            valued_at: string;
            /** @description Explanation that can be shown to the customer. */
            message: string;
        };
        /**
         * @description A partner user's permanent route: reusable deposit addresses whose confirmed deposits are converted and paid
         *     out to one Zano wallet.
         */
        PermanentRoute: {
            /**
             * Format: uuid
             * @description The route's ID, the `{id}` of its operations.
             */
            route_id: string;
            /** @description The partner's identifier of the customer the route belongs to (the `x-service-user` it was created with). */
            external_user_id: string;
            /**
             * @description The asset every conversion of the route pays out.
             * @enum {string}
             */
            destination_asset: "fUSD" | "ZANO";
            /**
             * @description Permanent routes settle on the Zano network only.
             * @constant
             */
            destination_network: "ZANO";
            /** @description The Zano settlement wallet (base58) whose ownership was proven; every conversion pays out to it. */
            destination_address: string;
            /** @description The partner's label for the route; absent when none was given. */
            label?: string;
            /**
             * @description `active` (deposits are converted) or `disabled` (deposits are no longer converted automatically;
             *     contact support). A plain string so that new values are not breaking.
             */
            status: string;
            /**
             * @description Reusable deposit addresses keyed `ASSET/NETWORK`. An empty string means the address is still being
             *     allocated: use only non-empty entries.
             */
            addresses: {
                [key: string]: string;
            };
            /**
             * @description The route's addresses and verified destination signed by the service: a compact JWS (RFC 7515) with
             *     the protected header `{"alg", "kid", "typ": "route-addresses+jws"}` and the `RouteAddresses` payload
             *     (the route id, the partner's user id, the destination asset, network and address, every address of
             *     `addresses` keyed the same way, and the signing time). Verify it with the key of
             *     `GET /signing-keys` whose `kid` is the header's. Signed once, when the last of the route's addresses
             *     is allocated; `null` until then.
             */
            addresses_jws?: string | null;
            /** @description The fee terms of each conversion, fixed when the route was created (the partner markup in force then included). */
            fee: {
                /** @description Fee percentage of each conversion, the partner markup included. */
                percent: number;
                /** @description Minimum fee per conversion in USD. */
                floor_usd: number;
            };
            /** @description Minimum USD value converted at once; smaller deposits accumulate per asset. */
            min_swap_usd: number;
            /** @description Automatic-processing maximum in USD; a larger deposit goes to `review`. */
            max_auto_swap_usd: number;
            /** @description The same-asset buckets of confirmed deposits waiting to reach `min_swap_usd`; empty when none waits. */
            accumulations: components["schemas"]["PermanentAccumulation"][];
            /**
             * Format: date-time
             * @description End of the current faster-polling window, if any.
             */
            expect_deposit_until?: string | null;
            /**
             * Format: date-time
             * @description When the route was created.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When the route last changed (an expect-deposit window opened, for example); polling alone does not change it.
             */
            updated_at: string;
        };
        /** @description One page of the partner's permanent routes, newest first (`GET /permanent-routes`). */
        PermanentRouteList: {
            /** @description The routes of this page, newest first. */
            routes: components["schemas"]["PermanentRoute"][];
            /**
             * @description Cursor of the next page, always present: pass it as `cursor`; `null` on the last page. Snake case
             *     like every field of the permanent-route operations (named `nextCursor`, and optional, in 1.12.0).
             */
            next_cursor: string | null;
        };
        /** @description A deposit to a permanent route address with its confirmation progress and public status. */
        PermanentDeposit: {
            /**
             * Format: uuid
             * @description The deposit's ID, the same in every `permanent_deposit.updated` about it.
             */
            id: string;
            asset: components["schemas"]["AssetSymbol"];
            network: components["schemas"]["NetworkCode"];
            txHash: components["schemas"]["TxHash"];
            /**
             * Format: int32
             * @description The output (or log) index of the payment within its transaction; `txHash` and `outputIndex` identify it.
             */
            outputIndex: number;
            /** @description Amount in the asset's smallest unit (satoshi, wei, ...), as a decimal integer string. */
            amountBaseUnits: string;
            /**
             * Format: int32
             * @description Confirmations the route's polling has seen so far (`0` while unmined).
             */
            confirmationCount: number;
            /**
             * Format: int32
             * @description Confirmations the network needs before the deposit counts (then it accumulates or joins an order).
             */
            requiredConfirmations: number;
            status: components["schemas"]["PermanentDepositStatus"];
            /** @description True when the deposit will not change again: its order is terminal, or it is `dust`. */
            terminal: boolean;
            actionRequired: components["schemas"]["ActionRequired"];
            /**
             * @description Whether repeating the action is safe and useful because no customer funds are held for the deposit: the
             *     `retryable` of its status in the `SwapStatus` table, so true only once its order was `refunded` (the
             *     deposit went back to its sender); false in every other status, `dust` included.
             */
            retryable: boolean;
            /** @description Reason code of `status` (see `SwapStatus`; `below_dust_floor` for `dust`). A free string: new values may appear. */
            reasonCode: string;
            /** @description The order converting this deposit, once there is one. */
            orderId?: string | null;
            /** @description The payout transaction of the deposit's order; `null` until it is signed. */
            settlementTxHash?: string | null;
            /**
             * @description When the deposit's order was refunded: the transaction that returned this deposit to its sender
             *     (each deposit of an order is returned to its own sender), less the network's payout fee at the
             *     market price when the refund was committed (the order's `refundAmount` is what all its deposits'
             *     refunds returned). An order with a deposit that fee would leave at or below the dust floor is not
             *     refunded: it is held for an operator (`review`).
             */
            refundTxHash?: string | null;
            /**
             * @description What the deposit's order paid out, in units of the route's destination asset (for all the deposits it
             *     converted); `null` until known.
             */
            actualOutputAmount?: string | null;
            /**
             * Format: date-time
             * @description When the route's polling first saw the transaction.
             */
            firstSeenAt: string;
            /**
             * Format: date-time
             * @description When the route's polling last saw the transaction.
             */
            lastSeenAt: string;
            /**
             * Format: date-time
             * @description When the deposit reached `requiredConfirmations`; `null` before, and again if a reorganisation removed it.
             */
            confirmedAt?: string | null;
            /** @description While accumulating - USD value waiting in this deposit's bucket; otherwise `null`. */
            accumulated_usd: string | null;
            /** @description While accumulating - the bucket's threshold (the route's `min_swap_usd`); otherwise `null`. */
            threshold_usd: string | null;
            /**
             * @description While accumulating - the USD value of the same asset and network still needed before the bucket is
             *     converted; otherwise `null`.
             */
            remaining_usd: string | null;
            /** @description True while the deposit waits in a same-asset bucket. */
            same_asset_required: boolean;
            /**
             * Format: date-time
             * @description While accumulating - when the bucket was last valued in USD; otherwise `null`.
             */
            valued_at: string | null;
            /** @description While accumulating - an explanation that can be shown to the customer; otherwise `null`. */
            message: string | null;
        };
        /**
         * @description A permanent-route deposit's status: its own (`confirming`, `accumulating`) until it joins an order,
         *     then its order's (`SwapStatus`, with that table's attributes). One more value: `dust`, a payment
         *     below its asset's dust floor, recorded but never valued, accumulated, converted or announced
         *     (`terminal` true, `actionRequired` `none`, `reasonCode` `below_dust_floor`, `retryable` false).
         * @enum {string}
         */
        PermanentDepositStatus: "waiting" | "confirming" | "exchanging" | "sending" | "accumulating" | "finished" | "refunded" | "failed" | "expired" | "overdue" | "review" | "dust";
        /** @description One page of a route's deposits, newest first, with its same-asset buckets (`GET /permanent-routes/{id}/deposits`). */
        PermanentDepositList: {
            /**
             * Format: uuid
             * @description The route these deposits were paid to.
             */
            route_id: string;
            /** @description The route's same-asset buckets waiting to reach `min_swap_usd` (as in `PermanentRoute.accumulations`). */
            accumulations: components["schemas"]["PermanentAccumulation"][];
            /** @description The deposits of this page, newest first. */
            deposits: components["schemas"]["PermanentDeposit"][];
            /**
             * @description Cursor of the next page, always present: pass it as `cursor`; `null` on the last page. Snake case
             *     like every field of the permanent-route operations (named `nextCursor`, and optional, in 1.12.0).
             */
            next_cursor: string | null;
        };
        /**
         * @description Answer of `POST /permanent-routes/{id}/expect-deposit`: the route's addresses are polled faster until
         *     `expect_deposit_until`.
         */
        PermanentDepositExpectation: {
            /**
             * @description Always `true`: the faster-polling window is open.
             * @constant
             */
            ok: true;
            /**
             * Format: date-time
             * @description End of the faster-polling window (1800 s from now by default); the route's `expect_deposit_until` shows the same.
             */
            expect_deposit_until: string;
        };
        /**
         * @description `webhook.test` is sent only on request (`POST /partner/webhook/test`).
         * @enum {string}
         */
        WebhookEventType: "swap.updated" | "permanent_deposit.updated" | "webhook.test";
        /**
         * @description The partner's webhook configuration (`GET /partner/webhook`). The signing secret itself is never shown here,
         *     only its hint.
         */
        PartnerWebhook: {
            /**
             * Format: uri
             * @description The delivery URL, `null` when none is set.
             */
            url: string | null;
            /** @description Whether messages are delivered; `false` when none is set or deliveries were stopped. */
            enabled: boolean;
            /** @description The last characters of the signing secret, for recognition only. */
            secretHint: string | null;
            /** @description Event types delivered to the URL (the `eventTypes` filter set with `PUT /partner/webhook`; every type without one). */
            eventTypes: components["schemas"]["WebhookEventType"][];
            /**
             * Format: date-time
             * @description When the URL, `enabled`, the event filter or the secret last changed; `null` when none is set. A
             *     set that changes none of them keeps it.
             */
            updatedAt: string | null;
        };
        /** @description Sets the webhook URL (`PUT /partner/webhook`); can also rotate the signing secret or stop and restart deliveries. */
        PartnerWebhookRequest: {
            /**
             * Format: uri
             * @description The delivery URL. `https` and a public address are required in production mode. `null` removes
             *     the webhook: the URL and the signing secret are deleted and nothing more is delivered.
             */
            url: string | null;
            /**
             * @description Generate a new signing secret and return it.
             * @default false
             */
            rotateSecret?: boolean;
            /**
             * @description `false` stops deliveries (the URL and secret are kept; messages created meanwhile are not
             *     delivered later, pending retries are dropped); `true` turns them on again.
             * @default true
             */
            enabled?: boolean;
            /**
             * @description Only these event types are delivered (messages of other types are not sent, and have no
             *     entries in `GET /partner/webhook/deliveries`); `null` delivers every type, as before the first
             *     filter; absent keeps the filter in force. `webhook.test` is always sent when asked for
             *     (`POST /partner/webhook/test`) and need not be listed; `[]` delivers nothing else. The filter
             *     applies to messages dispatched after the change (a message is dispatched within a second of
             *     being written); retries of a message dispatched before keep going.
             * @example [
             *       "swap.updated"
             *     ]
             */
            eventTypes?: components["schemas"]["WebhookEventType"][] | null;
        };
        /** @description The webhook configuration after an update, with the new secret when one was generated. */
        PartnerWebhookUpdate: {
            /** Format: uri */
            url: string | null;
            /** @description Whether messages are delivered, after this call. */
            enabled: boolean;
            /** @description The last characters of the signing secret now in force, for recognition only. */
            secretHint: string | null;
            /** @description Event types delivered to the URL. */
            eventTypes: components["schemas"]["WebhookEventType"][];
            /**
             * Format: date-time
             * @description When the URL, `enabled` or the secret last changed; a call that changes none of them keeps it.
             */
            updatedAt: string | null;
            /**
             * @description The full signing secret `whsec_<base64>`, present only when it was generated by this call (first
             *     set, or `rotateSecret: true`); otherwise `null`. It is not shown again.
             */
            secret: string | null;
        };
        /** @description One delivery attempt of one webhook message. */
        WebhookDelivery: {
            /**
             * Format: uuid
             * @description The attempt's own id.
             */
            id: string;
            /** @description The message's `webhook-id`, the same on every attempt of one message. */
            eventId: string;
            type: components["schemas"]["WebhookEventType"];
            /**
             * Format: int32
             * @description 1 for the first attempt, 2 for the first retry, and so on.
             */
            attempt: number;
            /**
             * Format: uri
             * @description The URL this attempt was sent to.
             */
            url: string;
            /** @description The receiver answered `2xx`. */
            succeeded: boolean;
            /**
             * Format: int32
             * @description The receiver's HTTP status; `null` when it did not answer (connection error, timeout, refused address).
             */
            statusCode: number | null;
            /**
             * @description Why the attempt failed, in the service's words (the status code, or what failed before an answer:
             *     refused address, connection refused, timeout), `null` when it succeeded. Never the receiver's
             *     reason phrase, headers or body.
             */
            error: string | null;
            /**
             * Format: int32
             * @description From the start of the attempt to the receiver's status line (or the failure).
             */
            durationMs: number;
            /**
             * Format: date-time
             * @description When the attempt started (its `webhook-timestamp`).
             */
            attemptedAt: string;
            /**
             * Format: date-time
             * @description When the message will be retried after this failed attempt; `null` when it succeeded or no retry is left.
             */
            nextAttemptAt: string | null;
        };
        /** @description One page of the partner's webhook delivery attempts, newest first (`GET /partner/webhook/deliveries`). */
        WebhookDeliveryList: {
            /** @description The delivery attempts of this page, newest first. */
            deliveries: components["schemas"]["WebhookDelivery"][];
            /** @description Cursor of the next page, `null` on the last page. */
            nextCursor: string | null;
        };
        /**
         * @description The partner's markup on permanent routes (`GET` and `PUT /partner/markup`). A route carries the markup in
         *     force when it was created.
         */
        PartnerMarkup: {
            /** @description Markup percentage added to the fee of new permanent routes; `0` until set. */
            percent: number;
            /**
             * Format: date-time
             * @description When the markup last changed, `null` until set. A set to the percentage it already has keeps it.
             */
            updatedAt: string | null;
        };
        /** @description Sets the partner's markup for permanent routes created from now on; existing routes keep theirs. */
        PartnerMarkupRequest: {
            /** @description Markup percentage, 0 to 3 with at most two decimal places (checked by the server). */
            percent: number;
        };
        /** @description The markup earned on one finished permanent-route order, recorded when its payout settled. */
        Earning: {
            /**
             * Format: uuid
             * @description The entry's ID; one entry per finished permanent-route order.
             */
            id: string;
            /** Format: uuid */
            routeId: string;
            orderId: components["schemas"]["SwapId"];
            asset: components["schemas"]["AssetSymbol"];
            network: components["schemas"]["NetworkCode"];
            /** @description Markup earned, in units of `asset`. */
            amount: components["schemas"]["DecimalAmount"];
            /** @description USD value of `amount` at conversion time. */
            amountUsd: components["schemas"]["DecimalAmount"];
            /** @description Markup percentage the route carried. */
            markupPercent: number;
            /**
             * Format: date-time
             * @description When the entry was recorded (the order's payout settled); the `from` and `to` filters apply to it.
             */
            createdAt: string;
        };
        /** @description The markup earned in one asset on one network, summed over every entry matching the filters. */
        EarningTotal: {
            asset: components["schemas"]["AssetSymbol"];
            network: components["schemas"]["NetworkCode"];
            amount: components["schemas"]["DecimalAmount"];
            amountUsd: components["schemas"]["DecimalAmount"];
        };
        /** @description Answer of `GET /partner/earnings`: one page of earnings, newest first, and totals over all matching entries. */
        EarningsPage: {
            /** @description The entries of this page, newest first. */
            earnings: components["schemas"]["Earning"][];
            /** @description Sums over all entries matching the filters, per asset and network. */
            totals: components["schemas"]["EarningTotal"][];
            nextCursor: string | null;
        };
        /**
         * @description A simulated customer payment to an allocated deposit address (sandbox only). A swap's address takes any
         *     asset of its network, as a real chain does: a payment of another asset than the swap's source asset is
         *     listed in its `deposits` with that asset and returned to its sender (a payment of another network is
         *     refused, 400 `invalid_request`, `details.field: asset`). A permanent route's address takes its route's assets.
         */
        SandboxDepositRequest: {
            address: components["schemas"]["Address"];
            asset: components["schemas"]["AssetSymbol"];
            network: components["schemas"]["NetworkCode"];
            /** @description Amount paid, in units of the asset. */
            amount: components["schemas"]["SourceAmount"];
            /** @description Memo attached to the simulated payment. */
            memo?: components["schemas"]["Memo"];
            /**
             * @description The sender the simulated transaction names, an address of `network` (else `400 invalid_request`,
             *     `details.field: fromAddress`); absent: a fresh address. Refunds to the sender go there, and address
             *     screening judges it (a sender screening denies holds the swap in `review` with
             *     `failureCode: screening_hold`). On ZANO, whose transactions hide their sender, it is not screened.
             */
            fromAddress?: components["schemas"]["Address"];
        };
        /** @description The simulated transaction that was broadcast; the simulated chain then confirms it block by block (sandbox only). */
        SandboxDeposit: {
            txHash: components["schemas"]["TxHash"];
            address: components["schemas"]["Address"];
            asset: components["schemas"]["AssetSymbol"];
            network: components["schemas"]["NetworkCode"];
            amount: components["schemas"]["DecimalAmount"];
            /** @description Memo attached to the simulated payment; `null` when none. */
            memo: string | null;
            /**
             * Format: int32
             * @description The payment's output index within the simulated transaction, as in `SwapDeposit.outputIndex`.
             */
            outputIndex: number;
            /**
             * Format: int32
             * @description Confirmations the network needs before the deposit counts, as `requiredConfirmations` of the swap,
             *     its events and route deposits. Named `confirmationsRequired` in 1.12.0.
             */
            requiredConfirmations: number;
            /**
             * Format: date-time
             * @description When the simulated transaction was broadcast.
             */
            createdAt: string;
        };
        /** @description The operator's decision on a swap in `review`, played by the partner (sandbox only). */
        SandboxReviewDecision: {
            /**
             * @description `approve` continues the swap (`exchanging`); `refund` returns the deposit less the network's payout fee (`refunded`); `fail` ends it as `failed`.
             * @enum {string}
             */
            decision: "approve" | "refund" | "fail";
        };
        /** @description Which of a swap's deadlines to pass now instead of waiting for it (sandbox only). */
        SandboxClockAdvance: {
            /**
             * @description `deposit` - the deposit deadline passes now; `expiry` - the overdue grace period ends now.
             * @enum {string}
             */
            deadline: "deposit" | "expiry";
        };
        /** @description A one-shot simulated provider failure to arm for a swap (sandbox only). */
        SandboxFailureInjection: {
            /**
             * @description `exchange` - the exchange fails and the deposit is refunded (less the network's payout fee); `payout` - the chain refuses the payout's
             *     broadcast and the swap becomes `failed`.
             * @enum {string}
             */
            stage: "exchange" | "payout";
        };
        /** @description A simulated chain reorganisation of one network: blocks removed from its tip (sandbox only). */
        SandboxReorganizationRequest: {
            /**
             * Format: int32
             * @description How many blocks to remove from the tip of the simulated chain.
             */
            blocks: number;
        };
        /** @description What a simulated chain reorganisation removed, and the chain's tip after it. */
        SandboxReorganization: {
            network: components["schemas"]["NetworkCode"];
            /**
             * Format: int32
             * @description Blocks removed; fewer than asked when the simulated chain is shorter.
             */
            removedBlocks: number;
            /** @description The last block of the simulated chain after the reorganisation. */
            tip: {
                /**
                 * Format: int64
                 * @description The tip's height (the genesis block is height 0).
                 */
                height: number;
                /** @description The block's hash, 64 lowercase hex digits. */
                hash: string;
            };
            /** @description The payments that were mined in the removed blocks; they have left the chain. */
            removedTransactions: {
                txHash: components["schemas"]["TxHash"];
                /**
                 * Format: int32
                 * @description The payment's output index within its transaction.
                 */
                outputIndex: number;
            }[];
        };
        /**
         * @description Webhook body sent when a swap changes: a status change (with its new timeline entry) or an order change
         *     without one (deposit address assigned, amounts, a `deposits` entry).
         */
        SwapUpdatedEvent: {
            /**
             * @description The event type; `swap.updated` for this body.
             * @constant
             */
            type: "swap.updated";
            /**
             * Format: date-time
             * @description When the message was created (not the delivery attempt).
             */
            timestamp: string;
            /** @description The swap as it is after the change, and the timeline entry the change added, if any. */
            data: {
                order: components["schemas"]["Swap"];
                /** @description The new timeline entry, or `null` when only the order changed. */
                event: components["schemas"]["SwapEvent"] | null;
            };
        };
        /**
         * @description Webhook body sent when a permanent-route deposit changes: seen, confirmed, accumulating, joined to an order,
         *     or its order's status changed. `dust` deposits are never announced.
         */
        PermanentDepositUpdatedEvent: {
            /**
             * @description The event type; `permanent_deposit.updated` for this body.
             * @constant
             */
            type: "permanent_deposit.updated";
            /**
             * Format: date-time
             * @description When the message was created (not the delivery attempt).
             */
            timestamp: string;
            /** @description The route and the deposit as it is after the change. */
            data: {
                /**
                 * Format: uuid
                 * @description The route (`PermanentRoute.route_id`), named as `GET /permanent-routes/{id}/deposits` names it.
                 */
                route_id: string;
                deposit: components["schemas"]["PermanentDeposit"];
            };
        };
        /** @description Webhook body of a test ping, sent only on request (`POST /partner/webhook/test`). */
        WebhookTestEvent: {
            /**
             * @description The event type; `webhook.test` for this body.
             * @constant
             */
            type: "webhook.test";
            /**
             * Format: date-time
             * @description When the test was requested.
             */
            timestamp: string;
            /** @description The test message. */
            data: {
                /** @description A human-readable note; nothing to act on. */
                message: string;
            };
        };
    };
    responses: {
        /**
         * @description The request is invalid: `invalid_request` (a path, query, header or body value fails the schema, or
         *     an unknown query parameter was sent; `error.details.errors` lists `{path, message}`), or
         *     `malformed_json` (the body is not valid JSON).
         */
        BadRequest: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Only one of `sourceAsset` and `sourceNetwork` was given, or a value fails its pattern (`invalid_request`). */
        PairsBadRequest: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The quote request is invalid (`invalid_request` with `error.details.errors`, or `malformed_json`), or
         *     its `refundAddress` / `refundMemo` is not valid for the source network (`invalid_refund_address`,
         *     `invalid_memo`, with the field in `error.details.field`).
         */
        QuoteBadRequest: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The swap request is invalid: `invalid_request`, `malformed_json`, `invalid_idempotency_key` (the
         *     `Idempotency-Key` header is missing or malformed), `quote_mismatch` (pair, amount, rate type or
         *     refund fields differ from the quote), `invalid_destination`, `invalid_refund_address` or
         *     `invalid_memo` (with the field in `error.details.field`).
         */
        SwapBadRequest: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The settlement target is invalid: `invalid_settlement_target` (the address does not decode, has a bad
         *     checksum or is a gateway address), `invalid_request` or `malformed_json`.
         */
        ChallengeBadRequest: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The route request is invalid: `external_user_mismatch` (`externalUserId` differs from `x-service-user`),
         *     `invalid_challenge` (unknown, expired, used or foreign challenge, or `message` differs from its text),
         *     `invalid_request` or `malformed_json`.
         */
        RouteBadRequest: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Signed-request authentication failed: `authentication_required`, `unknown_key`, `invalid_signature`,
         *     `timestamp_out_of_window`, `nonce_reused` or `partner_disabled` (see the `serviceSignature` scheme).
         */
        Unauthorized: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Neither a valid swap access token for this swap nor a valid signed request was presented:
         *     `authentication_required`, `invalid_token`, or one of the signed-request codes.
         */
        SwapReadUnauthorized: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The swap access token is missing (`authentication_required`) or not valid for this swap (`invalid_token`). */
        StreamUnauthorized: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The wallet signature does not prove ownership of the destination (`ownership_not_verified`), or address
         *     screening does not allow the destination (`address_denied`, `details.field: destinationAddress`).
         */
        Forbidden: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Address screening does not allow an address the request names (`address_denied`): it is denied, or held
         *     for review (a destination or refund address held for review is refused as well; nothing is promised to
         *     it). `details.field` names the request field (`destinationAddress` or `refundAddress`), `details.role`
         *     its role (`destination` or `refund`) and `details.network` its network. The screening provider's reason
         *     is for the deployment's operators and is not given here. Ask the customer for another address; the
         *     same address is refused again.
         */
        AddressDenied: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No swap with this ID belongs to the partner (or to the token), or the path is not mounted (`not_found`). */
        SwapNotFound: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No permanent route with this ID belongs to the partner (`not_found`). */
        RouteNotFound: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The address is not a deposit address allocated by this service, or sandbox operations are not mounted (`not_found`). */
        SandboxNotFound: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description No quote can be given: `pair_unavailable`, `rate_type_unavailable`, `amount_below_minimum` or
         *     `amount_above_maximum` (the last two with the pair's limits in both assets in `error.details`:
         *     `minimumSourceAmount`, `maximumSourceAmount`, `minimumDestinationAmount`, `maximumDestinationAmount`).
         */
        QuoteConflict: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The swap cannot be created: `quote_expired` (the quote expired, was already used, or belongs to
         *     another partner; get a new quote) or `idempotency_key_reused` (the key was bound to a different
         *     body). An identical request still in progress is never a `409`: it waits, or gets `503` with
         *     `Retry-After`.
         */
        SwapConflict: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The route cannot be created at this time (`route_unavailable`), or the partner has as many routes as
         *     its quota allows (`route_limit_reached`, with `details.limit`; recovering an existing route still works).
         */
        RouteConflict: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The swap is not in a status that allows this sandbox action (`invalid_state`). */
        SandboxConflict: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The request body exceeds 64 KiB (`payload_too_large`). The server stops reading at the limit and
         *     closes the connection (`Connection: close`). The refusal counts against the client IP's public
         *     rate limit.
         */
        PayloadTooLarge: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body is not `application/json` (`unsupported_media_type`). */
        UnsupportedMediaType: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Rate limit exceeded (`rate_limited`). Wait `Retry-After` seconds before retrying. */
        TooManyRequests: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An unexpected failure (`internal_error`). No internals are exposed; quote `requestId` to support. */
        InternalError: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Temporarily unavailable (`service_unavailable`), for example a dependency is down. Retry with backoff. */
        ServiceUnavailable: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                "Retry-After": components["headers"]["RetryAfterHint"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The service cannot serve requests (`service_unavailable`); `error.details.checks` shows the failed check. */
        HealthUnavailable: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /**
         * @description The swap ID (`Swap.id`).
         * @example 3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71
         */
        SwapIdPath: components["schemas"]["SwapId"];
        /**
         * @description The route ID (`PermanentRoute.route_id`).
         * @example 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d
         */
        RouteIdPath: string;
        /**
         * @description Opaque cursor from the previous page (`nextCursor`; `next_cursor` in the permanent-route lists). Omit
         *     for the first page.
         * @example eyJjIjoiMjAyNi0wNi0xM1QwOTowMDowMC4wMDBaIn0
         */
        Cursor: string;
        /**
         * @description Caller-generated key that makes the create safe to retry: 1 to 255 visible ASCII characters
         *     (`0x21`-`0x7E`), for example a UUID. Remembered for 24 hours per partner key.
         * @example 4b5e7c9a-2d1f-4e3b-a6c8-0f9d2e4b6a8c
         */
        IdempotencyKey: string;
        /**
         * @description Message ID, identical on every retry of the same message. Use it to drop duplicates.
         * @example msg_2Lh9qWZk4V1bXc7Rt8Ns0Pa3Ye
         */
        WebhookId: string;
        /**
         * @description Unix time in seconds of this delivery attempt, in decimal digits.
         * @example 1781433678
         */
        WebhookTimestamp: string;
        /**
         * @description Space-separated list of signatures `v1,<base64>`; each is the base64 HMAC-SHA256 of
         *     `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded webhook secret.
         * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
         */
        WebhookSignature: string;
    };
    requestBodies: never;
    headers: {
        /**
         * @description Identifier of this request, also in `error.requestId` and the service logs. Quote it to support.
         * @example req_01HZX3V8K2M4N6P8Q0R2S4T6V8
         */
        RequestId: string;
        /**
         * @description Requests allowed in the current window for this scope (partner key, or client IP for public
         *     operations). The `RateLimit-*` headers are on every response to a request that was counted. A
         *     refused request (`401` failed authentication, `404` unknown path, `405` wrong method, `413`
         *     oversize body) counts against the client IP's public allowance, so its headers describe that
         *     allowance.
         * @example 600
         */
        RateLimitLimit: number;
        /**
         * @description Requests left in the current window.
         * @example 587
         */
        RateLimitRemaining: number;
        /**
         * @description Seconds until the current window resets.
         * @example 42
         */
        RateLimitReset: number;
        /**
         * @description Seconds to wait before retrying (always sent with `429`).
         * @example 17
         */
        RetryAfter: number;
        /**
         * @description When present, seconds to wait before retrying.
         * @example 2
         */
        RetryAfterHint: number;
        /**
         * @description Present, with the value `true`, only when this response is a replay of an earlier request with the same `Idempotency-Key`.
         * @example true
         */
        IdempotentReplayed: "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service and its database are available. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["HealthUnavailable"];
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundled OpenAPI 3.1 document. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getSigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key set, the key that signs now first. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `public, max-age=300`: the set may be cached for 300 s. */
                    "Cache-Control"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningKeySet"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listAssets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The asset catalog. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetCatalog"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPairs: {
        parameters: {
            query?: {
                /**
                 * @description Source asset symbol, for example `BTC`. Must be given together with `sourceNetwork`.
                 * @example BTC
                 */
                sourceAsset?: components["schemas"]["AssetSymbol"];
                /**
                 * @description Source network code, for example `BTC`. Must be given together with `sourceAsset`.
                 * @example BTC
                 */
                sourceNetwork?: components["schemas"]["NetworkCode"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Compact guidance (no parameters) or destination guidance (both parameters). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PairGuidance"];
                };
            };
            400: components["responses"]["PairsBadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createQuote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuoteRequest"];
            };
        };
        responses: {
            /** @description An executable quote. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuoteResponse"];
                };
            };
            400: components["responses"]["QuoteBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AddressDenied"];
            409: components["responses"]["QuoteConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSwaps: {
        parameters: {
            query?: {
                /**
                 * @description Page size. The default is the maximum, so that a request without `limit` gets as much as one page
                 *     carries (it was 20 in 1.12.0).
                 * @example 100
                 */
                limit?: number;
                /**
                 * @description Opaque cursor from the previous page (`nextCursor`; `next_cursor` in the permanent-route lists). Omit
                 *     for the first page.
                 * @example eyJjIjoiMjAyNi0wNi0xM1QwOTowMDowMC4wMDBaIn0
                 */
                cursor?: components["parameters"]["Cursor"];
                /**
                 * @description Only swaps currently in this status.
                 * @example waiting
                 */
                status?: components["schemas"]["SwapStatus"];
                /**
                 * @description Bulk status: the swaps to return, by id, comma-separated (at most 100). The comma may be sent
                 *     as `,` or percent-encoded as `%2C`; as for every signed request, sign the query exactly as it is
                 *     sent (a proxy that re-encodes it changes the bytes the signature covers).
                 * @example [
                 *       "8d1f4c27-90ab-4e3c-b5d6-1a2b3c4d5e6f",
                 *       "0b7e2f4a-6c1d-4e8f-9a3b-5d2c1e0f7a6b"
                 *     ]
                 */
                ids?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of swaps (with `ids`, the caller's swaps among them, in the order asked). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SwapList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createSwap: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Caller-generated key that makes the create safe to retry: 1 to 255 visible ASCII characters
                 *     (`0x21`-`0x7E`), for example a UUID. Remembered for 24 hours per partner key.
                 * @example 4b5e7c9a-2d1f-4e3b-a6c8-0f9d2e4b6a8c
                 */
                "Idempotency-Key": components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SwapRequest"];
            };
        };
        responses: {
            /**
             * @description The swap is queued. On an idempotent replay the original response is returned again with
             *     `Idempotent-Replayed: true`.
             */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SwapCreated"];
                };
            };
            400: components["responses"]["SwapBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AddressDenied"];
            409: components["responses"]["SwapConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSwap: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The swap ID (`Swap.id`).
                 * @example 3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71
                 */
                id: components["parameters"]["SwapIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The swap and its timeline. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SwapDetail"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["SwapReadUnauthorized"];
            404: components["responses"]["SwapNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    streamSwap: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description The `id` of the last `status` event received; replay starts after it.
                 * @example 0f8fad5b-d9cb-469f-a165-70867728950e
                 */
                "Last-Event-ID"?: string;
            };
            path: {
                /**
                 * @description The swap ID (`Swap.id`).
                 * @example 3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71
                 */
                id: components["parameters"]["SwapIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream. It stays open until the swap is terminal or the stream reaches its maximum lifetime. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["StreamUnauthorized"];
            /**
             * @description Too many concurrent streams (`too_many_streams`; `details.scope` names the limit reached and
             *     `details.limit` its value), or the client IP's request rate limit (`rate_limited`). Sent instead
             *     of the stream, before it starts. Wait `Retry-After` seconds before retrying.
             */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    getPartnerWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook configuration. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    putPartnerWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PartnerWebhookRequest"];
            };
        };
        responses: {
            /** @description The updated configuration; `secret` is present only when a secret was generated. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerWebhookUpdate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /**
                 * @description Page size.
                 * @example 20
                 */
                limit?: number;
                /**
                 * @description Opaque cursor from the previous page (`nextCursor`; `next_cursor` in the permanent-route lists). Omit
                 *     for the first page.
                 * @example eyJjIjoiMjAyNi0wNi0xM1QwOTowMDowMC4wMDBaIn0
                 */
                cursor?: components["parameters"]["Cursor"];
                /**
                 * @description Only the attempts of this message (its `webhook-id`).
                 * @example 1d3f6a2c-8b4e-4f7a-9c0d-5e6f7a8b9c0d
                 */
                eventId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of delivery attempts. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempt, whatever the receiver answered. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The partner has no webhook, or deliveries are stopped (`webhook_not_configured`). */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            /**
             * @description The partner's webhook receiver holds every sending slot (`rate_limited`, `details.scope`
             *     `webhook_receiver`; nothing was sent), or the partner's request rate limit is reached
             *     (`rate_limited`, `details.scope` `signed`). Wait `Retry-After` seconds before retrying.
             */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    getPartnerMarkup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current markup. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerMarkup"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    putPartnerMarkup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PartnerMarkupRequest"];
            };
        };
        responses: {
            /** @description The markup now in effect for new routes. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerMarkup"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listPartnerEarnings: {
        parameters: {
            query?: {
                /**
                 * @description Opaque cursor from the previous page (`nextCursor`; `next_cursor` in the permanent-route lists). Omit
                 *     for the first page.
                 * @example eyJjIjoiMjAyNi0wNi0xM1QwOTowMDowMC4wMDBaIn0
                 */
                cursor?: components["parameters"]["Cursor"];
                /**
                 * @description Page size.
                 * @example 50
                 */
                limit?: number;
                /**
                 * @description Only earnings created at or after this time. `:` may be sent as is or as `%3A`. A leap second
                 *     (`23:59:60`) or an offset of hours alone (`+01`) names no time the service can hold: 400
                 *     `invalid_request` with `details.field` and `details.value`.
                 * @example 2026-07-01T00:00:00Z
                 */
                from?: string;
                /**
                 * @description Only earnings created before this time. `:` may be sent as is or as `%3A`. A leap second
                 *     (`23:59:60`) or an offset of hours alone (`+01`) names no time the service can hold: 400
                 *     `invalid_request` with `details.field` and `details.value`.
                 * @example 2026-08-01T00:00:00Z
                 */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of earnings with totals. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EarningsPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createRouteChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermanentRouteTarget"];
            };
        };
        responses: {
            /** @description The challenge to sign. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermanentChallenge"];
                };
            };
            400: components["responses"]["ChallengeBadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listPermanentRoutes: {
        parameters: {
            query?: {
                /**
                 * @description Page size: 100 without it, as the other lists the requirement shows without paging (see Lists and
                 *     paging).
                 * @example 100
                 */
                limit?: number;
                /**
                 * @description Opaque cursor from the previous page (`nextCursor`; `next_cursor` in the permanent-route lists). Omit
                 *     for the first page.
                 * @example eyJjIjoiMjAyNi0wNi0xM1QwOTowMDowMC4wMDBaIn0
                 */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The partner's routes. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermanentRouteList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createPermanentRoute: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermanentRouteRequest"];
            };
        };
        responses: {
            /** @description The created or recovered route. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermanentRoute"];
                };
            };
            400: components["responses"]["RouteBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["RouteConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPermanentRoute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The route ID (`PermanentRoute.route_id`).
                 * @example 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d
                 */
                id: components["parameters"]["RouteIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The route. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermanentRoute"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["RouteNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listRouteDeposits: {
        parameters: {
            query?: {
                /**
                 * @description Opaque cursor from the previous page (`nextCursor`; `next_cursor` in the permanent-route lists). Omit
                 *     for the first page.
                 * @example eyJjIjoiMjAyNi0wNi0xM1QwOTowMDowMC4wMDBaIn0
                 */
                cursor?: components["parameters"]["Cursor"];
                /**
                 * @description Page size: 100 without it, as the other lists the requirement shows without paging (see Lists and
                 *     paging).
                 * @example 100
                 */
                limit?: number;
            };
            header?: never;
            path: {
                /**
                 * @description The route ID (`PermanentRoute.route_id`).
                 * @example 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d
                 */
                id: components["parameters"]["RouteIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The route's deposits and accumulations. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermanentDepositList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["RouteNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    expectRouteDeposit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The route ID (`PermanentRoute.route_id`).
                 * @example 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d
                 */
                id: components["parameters"]["RouteIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The expectation window. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermanentDepositExpectation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["RouteNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createSandboxDeposit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxDepositRequest"];
            };
        };
        responses: {
            /** @description The simulated transaction was broadcast; confirmations follow. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxDeposit"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["SandboxNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    decideSandboxReview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The swap ID (`Swap.id`).
                 * @example 3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71
                 */
                id: components["parameters"]["SwapIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxReviewDecision"];
            };
        };
        responses: {
            /** @description The swap after the decision. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SwapOrder"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["SwapNotFound"];
            409: components["responses"]["SandboxConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    injectSandboxFailure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The swap ID (`Swap.id`).
                 * @example 3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71
                 */
                id: components["parameters"]["SwapIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxFailureInjection"];
            };
        };
        responses: {
            /** @description The swap as it is now (the failure may fire later). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SwapOrder"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["SwapNotFound"];
            409: components["responses"]["SandboxConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    advanceSandboxSwapClock: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The swap ID (`Swap.id`).
                 * @example 3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71
                 */
                id: components["parameters"]["SwapIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxClockAdvance"];
            };
        };
        responses: {
            /** @description The swap after its deadline passed. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SwapOrder"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["SwapNotFound"];
            409: components["responses"]["SandboxConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    reorganizeSandboxChain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The network whose simulated chain to reorganise, as listed by `GET /assets` (`Asset.network`).
                 * @example LTC
                 */
                network: components["schemas"]["NetworkCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxReorganizationRequest"];
            };
        };
        responses: {
            /** @description The blocks were removed; the chain's new tip and the payments that left it. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxReorganization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    swapUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Message ID, identical on every retry of the same message. Use it to drop duplicates.
                 * @example msg_2Lh9qWZk4V1bXc7Rt8Ns0Pa3Ye
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Unix time in seconds of this delivery attempt, in decimal digits.
                 * @example 1781433678
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated list of signatures `v1,<base64>`; each is the base64 HMAC-SHA256 of
                 *     `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded webhook secret.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SwapUpdatedEvent"];
            };
        };
        responses: {
            /** @description Any `2xx` status acknowledges the delivery; the response body is ignored. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    permanentDepositUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Message ID, identical on every retry of the same message. Use it to drop duplicates.
                 * @example msg_2Lh9qWZk4V1bXc7Rt8Ns0Pa3Ye
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Unix time in seconds of this delivery attempt, in decimal digits.
                 * @example 1781433678
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated list of signatures `v1,<base64>`; each is the base64 HMAC-SHA256 of
                 *     `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded webhook secret.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermanentDepositUpdatedEvent"];
            };
        };
        responses: {
            /** @description Any `2xx` status acknowledges the delivery; the response body is ignored. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTestWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Message ID, identical on every retry of the same message. Use it to drop duplicates.
                 * @example msg_2Lh9qWZk4V1bXc7Rt8Ns0Pa3Ye
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Unix time in seconds of this delivery attempt, in decimal digits.
                 * @example 1781433678
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated list of signatures `v1,<base64>`; each is the base64 HMAC-SHA256 of
                 *     `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded webhook secret.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookTestEvent"];
            };
        };
        responses: {
            /** @description Any `2xx` status acknowledges the delivery; the response body is ignored. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
