/**
 * The partner's webhook (docs/architecture.md#streams-and-webhooks): its URL, its signing secret (generated on first set, shown once,
 * rotatable), turning deliveries off and on, the record of delivery attempts, and a test send.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/api.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { createWebhookSecret, secretHint, WEBHOOK_SECRET_BYTES } from '../domain/webhook-signing.js';
import { checkWebhookUrlForm, WebhookTargetError } from '../domain/webhook-targets.js';
import type { Handlers } from '../http/handler-types.js';
import { transaction } from '../store/after-commit.js';
import {
  createAttemptPageReader,
  deleteWebhook,
  findWebhook,
  lockWebhook,
  updateWebhook,
  upsertWebhook,
  webhookSecretOwner,
  type AttemptRecord,
  type WebhookRecord,
} from '../store/webhooks.js';
import type { HandlerDeps } from './deps.js';
import { CURSOR_FIELDS, cursorTime, decodeCursor, encodeCursor } from './cursors.js';
import { requirePartner } from './partner.js';

type WebhookEventType = components['schemas']['WebhookEventType'];
type WebhookDeliveryBody = components['schemas']['WebhookDelivery'];

/** The event types every webhook receives (webhook.test only on request). */
export const DELIVERED_EVENT_TYPES: WebhookEventType[] = ['swap.updated', 'permanent_deposit.updated'];

/** Handlers for the webhook operations of the Partner tag. */
export function createWebhookHandlers(
  deps: HandlerDeps,
): Pick<Handlers, 'getPartnerWebhook' | 'putPartnerWebhook' | 'listWebhookDeliveries' | 'sendTestWebhook'> {
  const readAttemptPage = createAttemptPageReader(deps.knex);
  return {
    async getPartnerWebhook({ partner }) {
      const { partnerId } = requirePartner(partner);
      return { status: 200, body: webhookBody(await findWebhook(deps.knex, partnerId)) };
    },

    async putPartnerWebhook({ partner, body }) {
      const { partnerId } = requirePartner(partner);
      if (body.url === null) {
        // Rotating a secret that is being deleted would hand out one that signs nothing.
        if (body.rotateSecret)
          throw invalidRequest('rotateSecret cannot be combined with url: null, which deletes the secret.', { field: 'rotateSecret' });
        await deleteWebhook(deps.knex, partnerId);
        return { status: 200, body: { ...webhookBody(undefined), secret: null } };
      }
      const url = body.url;
      const enabled = body.enabled ?? true;
      // The filter as stored: the delivered types chosen, in the catalogue's order (null: every type; absent:
      // kept). webhook.test is sent on request whatever the filter, so it is not part of it.
      const eventTypes =
        body.eventTypes === undefined || body.eventTypes === null
          ? body.eventTypes
          : DELIVERED_EVENT_TYPES.filter((type) => body.eventTypes!.includes(type));
      try {
        const target = checkWebhookUrlForm(url, deps.config.webhookRequireHttps);
        // Nothing is sent while deliveries are off; the address is checked when they are turned on (and
        // again by the delivery machinery at every connection, with the same rules and name resolution).
        if (enabled) await deps.jobs.webhooks.checkTarget(target);
      } catch (err) {
        if (err instanceof WebhookTargetError) throw invalidRequest(err.message, { field: 'url' });
        throw err;
      }
      // Keeping the secret, one update is the whole change. Making one (the first webhook, a rotation) takes
      // the partner's lock, so that two first PUTs at once make one secret.
      if (!body.rotateSecret) {
        const updated = await updateWebhook(deps.knex, partnerId, { url, enabled, eventTypes });
        if (updated) return { status: 200, body: { ...webhookBody(updated), secret: null } };
      }
      const { webhook, secret } = await transaction(deps.knex, async (trx) => {
        const existing = await lockWebhook(trx, partnerId);
        const secret = !existing || body.rotateSecret ? createWebhookSecret(randomBytes(WEBHOOK_SECRET_BYTES)) : undefined;
        const webhook = await upsertWebhook(trx, partnerId, {
          url,
          enabled,
          eventTypes,
          ...(secret ? { secret: { sealed: deps.secretBox.seal(secret, webhookSecretOwner(partnerId)), hint: secretHint(secret) } } : {}),
        });
        return { webhook, secret };
      });
      return { status: 200, body: { ...webhookBody(webhook), secret: secret ?? null } };
    },

    async listWebhookDeliveries({ partner, query }) {
      const { partnerId } = requirePartner(partner);
      const limit = query.limit ?? 20;
      const position = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query.eventId, ATTEMPT_POSITION);
      const before = position && { attemptedAt: cursorTime(position.a), seq: position.s };
      const rows = await readAttemptPage(partnerId, { limit: limit + 1, before, messageId: query.eventId });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        status: 200,
        body: {
          deliveries: page.map(deliveryBody),
          nextCursor: rows.length > limit && last ? encodeCursor({ a: last.attemptedAt.toISOString(), s: last.seq }, query.eventId) : null,
        },
      };
    },

    async sendTestWebhook({ partner }) {
      const { partnerId } = requirePartner(partner);
      const attempt = await deps.jobs.webhooks.sendTest(partnerId);
      if (attempt === 'busy') {
        // Every slot of the partner's is taken (deliveries, or other test sends to a receiver that holds them):
        // a test send would be one more connection to it, past WEBHOOK_MAX_CONCURRENT_PER_PARTNER.
        const retryAfter = Math.ceil(deps.config.webhookTimeoutSeconds);
        throw new AppError(
          429,
          'rate_limited',
          `Your webhook receiver already has ${deps.config.webhookMaxConcurrentPerPartner} requests in flight from this service, the most it gets at once; retry after ${retryAfter} s.`,
          { limit: deps.config.webhookMaxConcurrentPerPartner, scope: 'webhook_receiver' },
          { headers: { 'Retry-After': String(retryAfter) } },
        );
      }
      if (!attempt) {
        throw new AppError(
          409,
          'webhook_not_configured',
          'No webhook is set, or deliveries are stopped; set one (enabled: true) with PUT /partner/webhook first.',
        );
      }
      return { status: 200, body: deliveryBody(attempt) };
    },
  };
}

function webhookBody(webhook: WebhookRecord | undefined) {
  return {
    url: webhook?.url ?? null,
    enabled: webhook?.enabled ?? false,
    secretHint: webhook?.secretHint ?? null,
    eventTypes: (webhook?.eventTypes as WebhookEventType[] | null | undefined) ?? DELIVERED_EVENT_TYPES,
    updatedAt: webhook?.updatedAt.toISOString() ?? null,
  };
}

/** An attempt as the API shows it. */
export function deliveryBody(attempt: AttemptRecord): WebhookDeliveryBody {
  return {
    id: attempt.id,
    eventId: attempt.messageId,
    type: attempt.type as WebhookEventType,
    attempt: attempt.attempt,
    url: attempt.url,
    succeeded: attempt.succeeded,
    statusCode: attempt.statusCode,
    error: attempt.error,
    durationMs: attempt.durationMs,
    attemptedAt: attempt.attemptedAt.toISOString(),
    nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
  };
}

// An attempts page position: the last attempt's time and record order.
const ATTEMPT_POSITION = { a: CURSOR_FIELDS.timestamp, s: CURSOR_FIELDS.sequence };
